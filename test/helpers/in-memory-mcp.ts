/**
 * The MCP server driven by an SDK client in memory, for tool tests that need no process: the container of
 * gateway-app.ts (the gateway's modules, a config text and an environment instead of files) served by
 * `McpServerService.serveConnection`, the gate and both eras exactly as `system1 mcp` serves stdio, over the
 * SDK's in-memory transport pair. What only a process shows (stdio framing, exit, signals, reading the real
 * environment and files) stays in test/e2e.
 *
 * @example
 * const gateways = InMemoryGateways.perTest();
 * const gateway = await gateways.connect({ toml: '[gateway]\nprovider = "mock"\n' });
 * expect((await gateway.decide({ question: 'Ship it?' })).body.status).toBe('decided');
 */
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import type { TestingModule } from '@nestjs/testing';
import { McpServerService } from '../../src/mcp/mcp-server.service';
import { gatewayApp, type GatewayAppOptions } from './gateway-app';
import { ToolCalls } from './tool-reply';

export interface InMemoryGatewayOptions extends GatewayAppOptions {
  /**
   * The client: `legacy` (default) is the 1.x SDK's `Client`, which opens with `initialize` (2025 revisions,
   * what Claude Code speaks); `modern` is the 2.x `Client` pinned to 2026-07-28 (no handshake, `_meta` per request).
   */
  era?: 'legacy' | 'modern';
}

/** The one client surface both SDK majors share that these tests use. */
type McpClient = Pick<Client, 'callTool' | 'listTools' | 'close'>;

/** A linked end that hands the other side a copy of each message made through JSON, as a wire would. */
class WireEnd implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** The revision the client settled on, as it tells its transport. */
  protocolVersion?: string;

  constructor(private readonly end: InMemoryTransport) {
    end.onmessage = (message, extra) => this.onmessage?.(message, extra);
    end.onclose = () => this.onclose?.();
    end.onerror = (error) => this.onerror?.(error);
  }

  static pair(): [WireEnd, WireEnd] {
    const [client, server] = InMemoryTransport.createLinkedPair();
    return [new WireEnd(client), new WireEnd(server)];
  }

  start(): Promise<void> {
    return this.end.start();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.end.send(JSON.parse(JSON.stringify(message)) as JSONRPCMessage);
  }

  close(): Promise<void> {
    return this.end.close();
  }
}

export class InMemoryGateway extends ToolCalls {
  private constructor(
    readonly app: TestingModule,
    readonly client: McpClient,
    private readonly wire: WireEnd,
  ) {
    super();
  }

  /** The protocol revision the client settled on (a 2025 one for `legacy`, 2026-07-28 for `modern`). */
  get protocolVersion(): string | undefined {
    return this.wire.protocolVersion;
  }

  static async connect({ era = 'legacy', ...options }: InMemoryGatewayOptions = {}): Promise<InMemoryGateway> {
    const app = await gatewayApp(options);
    const [clientEnd, serverEnd] = WireEnd.pair();
    app.get(McpServerService).serveConnection(serverEnd);
    const info = { name: 'system1-in-memory', version: '0.0.0' };
    try {
      if (era === 'modern') {
        const client = new ModernClient(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await client.connect(clientEnd);
        return new InMemoryGateway(app, client as unknown as McpClient, clientEnd);
      }
      const client = new Client(info);
      await client.connect(clientEnd);
      return new InMemoryGateway(app, client, clientEnd);
    } catch (error) {
      await app.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await this.app.close();
  }
}

/** Connects gateways and closes them: `perTest()` after each test, `perFile()` once after the file. */
export class InMemoryGateways {
  private readonly open: InMemoryGateway[] = [];

  async connect(options: InMemoryGatewayOptions = {}): Promise<InMemoryGateway> {
    const gateway = await InMemoryGateway.connect(options);
    this.open.push(gateway);
    return gateway;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((gateway) => gateway.close()));
  }

  static perTest(): InMemoryGateways {
    const gateways = new InMemoryGateways();
    afterEach(() => gateways.closeAll());
    return gateways;
  }

  static perFile(): InMemoryGateways {
    const gateways = new InMemoryGateways();
    afterAll(() => gateways.closeAll());
    return gateways;
  }
}
