import type { TestingModule } from '@nestjs/testing';
import { DecisionsApiParts } from '../../src/commands/decisions-api-parts';
import { ServeHttpParts } from '../../src/commands/serve-http-parts';
import type { LoadedConfig } from '../../src/config/config.loader';
import { system1Config } from '../../src/config/system1.config';
import { CallerModels } from '../../src/decisions/callers/caller-models.service';
import { DecisionService } from '../../src/decisions/pipeline/decision.service';
import { HealthService } from '../../src/decisions/pipeline/health.service';
import { EndpointLoad } from '../../src/decisions/pools/endpoint-load.service';
import { ProviderRegistry } from '../../src/decisions/registry/provider-registry.service';
import { settleHttpOptions } from '../../src/http-server/http-options';
import { type RunningHttpServer, startHttpServer } from '../../src/http-server/serve-http';
import { McpServerService } from '../../src/mcp/mcp-server.service';
import { gatewayApp, type GatewayAppOptions } from './gateway-app';

/** serve-http started in this process on 127.0.0.1:0, as the command starts it, with its log lines kept. */
export interface InProcessServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  origin: string;
  port: number;
  logs: string[];
  stop(): Promise<void>;
}

/**
 * Starts serve-http over the gateway's Nest container with this config and environment (the token variables
 * included), the way `system1 serve-http` does: its start-up problems thrown, not printed.
 */
export async function startServeHttp(options: GatewayAppOptions, port = 0): Promise<InProcessServer> {
  const app: TestingModule = await gatewayApp(options);
  const config = app.get<LoadedConfig>(system1Config.KEY);
  const env = { HOME: '/test/home', ...options.env };
  const callerModels = app.get(CallerModels);
  const parts = new ServeHttpParts(
    config,
    app.get(McpServerService),
    app.get(DecisionService),
    app.get(HealthService),
    app.get(EndpointLoad),
    app.get(ProviderRegistry),
  );
  const decisionsApi = new DecisionsApiParts(config, app.get(DecisionService), app.get(ProviderRegistry), callerModels);
  const settled = settleHttpOptions(config, { host: '127.0.0.1', port }, env);
  const problems = [...settled.problems, ...callerModels.forHttpCallers(), ...decisionsApi.problems()];
  if (!settled.options || problems.length > 0) {
    await app.close();
    throw new Error(`serve-http would not start: ${problems.join('; ')}`);
  }
  const logs: string[] = [];
  let running: RunningHttpServer;
  try {
    running = await startHttpServer(
      {
        ...parts.deps(
          (line) => logs.push(line),
          (line) => logs.push(line),
        ),
        decisionsApi: decisionsApi.api((line) => logs.push(line)),
      },
      settled.options,
    );
  } catch (error) {
    await app.close();
    throw error;
  }
  const origin = new URL(running.url).origin;
  return {
    origin,
    port: Number(new URL(origin).port),
    logs,
    stop: async () => {
      await running.stop();
      await app.close();
    },
  };
}
