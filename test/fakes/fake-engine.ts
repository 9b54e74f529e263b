import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { ReusedConnectionCloser } from './reused-connection-closer';

/**
 * Faults every fake engine can play, on its decision route (or every route with `faultEverywhere`):
 * - `slow`: answers normally after `slowMs`;      - `hang`: never answers;
 * - `hang-after-headers`: sends 200 headers, then nothing;  - `stall-body`: sends half a body, then nothing;
 * - `status-500|401|403|429|503`: the engine's own error body for that status (429/503 with Retry-After);
 * - `reset`: drops the connection;                 - `truncated`: half a body, then closes;
 * - `non-json`: 200 with plain text;               - `html-502`: a proxy's HTML error page;
 * - `huge`: a 5 MB JSON body;                      - `redirect`: `redirectStatus` (302) to `redirectTo`;
 * - `wrong-shape`: 200 JSON that is not the engine's answer shape;
 * - `echo-key-<encoding>`: the engine's own 401 body whose message echoes the key the request carried
 *   (bearer or x-api-key) in one {@link ECHO_ENCODINGS} form, as engines that quote a request back do.
 */
export const FAULTS = [
  'none',
  'slow',
  'hang',
  'hang-after-headers',
  'stall-body',
  'status-500',
  'status-401',
  'status-403',
  'status-429',
  'status-503',
  'reset',
  'truncated',
  'non-json',
  'html-502',
  'huge',
  'redirect',
  'wrong-shape',
  'echo-key-literal',
  'echo-key-base64',
  'echo-key-base64-unpadded',
  'echo-key-base64url',
  'echo-key-basic',
  'echo-key-key-colon',
  'echo-key-percent',
  'echo-key-json',
] as const;
export type Fault = (typeof FAULTS)[number];

/**
 * How an echoing engine writes the key back: as sent, in base64 (standard padded or not, url-safe), inside a
 * Basic header (`api:key`) or a `key:` pair in base64, percent-encoded, or in a JSON string with `\/` escapes.
 */
export const ECHO_ENCODINGS = [
  'literal',
  'base64',
  'base64-unpadded',
  'base64url',
  'basic',
  'key-colon',
  'percent',
  'json',
] as const;
export type EchoEncoding = (typeof ECHO_ENCODINGS)[number];

/** The key as an engine echoing it in `encoding` would write it. */
export function echoedKey(key: string, encoding: EchoEncoding): string {
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  switch (encoding) {
    case 'literal':
      return key;
    case 'base64':
      return base64(key);
    case 'base64-unpadded':
      return base64(key).replace(/=+$/, '');
    case 'base64url':
      return Buffer.from(key, 'utf8').toString('base64url');
    case 'basic':
      return `Basic ${base64(`api:${key}`)}`;
    case 'key-colon':
      return base64(`${key}:`);
    case 'percent':
      return encodeURIComponent(key);
    case 'json':
      return JSON.stringify({ api_key: key }).replace(/\//g, '\\/');
  }
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the body is JSON, else the raw text ('' for none). */
  body: unknown;
}

export interface FakeReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A fake engine on 127.0.0.1 that records every request and answers in the engine's wire format
 * (`../shared/wire-contracts.md`), or plays a fault. Subclasses give the happy path and the engine's own
 * error bodies.
 */
export abstract class FakeEngine {
  readonly requests: RecordedRequest[] = [];
  fault: Fault = 'none';
  /** Apply the fault to every route, health included (default: only the decision route). */
  faultEverywhere = false;
  slowMs = 5000;
  /** Keep every request in `requests` (off for long benchmark runs). */
  record = true;
  /** Delay before every decision answer, for a latency profile (benchmarks: fixed or jittered). */
  latencyMs?: () => number;
  /** Decision answers wait for this while it is set (a test holds an answer while it checks something else). */
  gate?: Promise<unknown>;
  /** Picks the fault per decision request (chaos runs); default: `fault`. */
  chooseFault?: (request: RecordedRequest) => Fault;
  redirectTo = 'http://127.0.0.1:9/';
  /** The status of the `redirect` fault: 302, or 307/308, which ask a client to send the body again. */
  redirectStatus = 302;
  /** Requests whose caller went away before the answer was sent (an aborted call, a timeout). */
  abandoned = 0;
  /** Those requests themselves (when recorded), in the order their connections closed. */
  readonly abandonedRequests: RecordedRequest[] = [];
  /** Set its `mode` to close connections as the client reuses them (such requests are never recorded). */
  readonly reusedConnections = new ReusedConnectionCloser();
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  /** The engine's name, as `npm run fake-engine -- <name>` takes it. */
  abstract readonly name: string;
  /** Paths of the decision route (faults apply there). */
  protected abstract readonly decisionPaths: readonly string[];
  /** The normal answer to a request. */
  protected abstract answer(request: RecordedRequest): FakeReply;
  /** The engine's own error body for a status. */
  protected abstract errorBody(status: number): unknown;
  /** A 200 body that is JSON but not this engine's answer shape. */
  protected wrongShape(): unknown {
    return { unexpected: 'shape', answers: 'none' };
  }

  async start(port = 0, host = '127.0.0.1'): Promise<URL> {
    const server = createServer((req, res) => void this.receive(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    return new URL(`http://${host}:${address.port}`);
  }

  get url(): URL {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error(`${this.name} fake is not started`);
    return new URL(`http://127.0.0.1:${address.port}`);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Requests to one path. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.reusedConnections.dropped(req)) return;
    let recorded: RecordedRequest | undefined;
    res.on('close', () => {
      if (res.writableFinished) return;
      this.abandoned++;
      if (recorded) this.abandonedRequests.push(recorded);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : '';
    } catch {
      // recorded as text
    }
    const path = (req.url ?? '/').split('?')[0];
    const request: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    if (this.record) this.requests.push((recorded = request));
    const decision = this.decisionPaths.includes(path);
    const fault = (decision && this.chooseFault?.(request)) || this.fault;
    if (fault !== 'none' && (this.faultEverywhere || decision)) return this.play(fault, request, res);
    if (decision && this.gate) await this.gate;
    if (decision && this.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.latencyMs!()));
    this.send(res, this.answer(request));
  }

  /** The key a request carried: its bearer token or its x-api-key ('' for none). */
  protected credentialOf(request: RecordedRequest): string {
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    return header('authorization')?.replace(/^Bearer /, '') ?? header('x-api-key') ?? '';
  }

  protected send(res: ServerResponse, { status, body, headers = {} }: FakeReply): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const type = typeof body === 'string' ? 'text/plain' : 'application/json';
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async play(fault: Fault, request: RecordedRequest, res: ServerResponse): Promise<void> {
    const full = JSON.stringify(this.answer(request).body);
    switch (fault) {
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, this.slowMs));
        return this.send(res, this.answer(request));
      case 'hang':
        return;
      case 'hang-after-headers':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        return;
      case 'stall-body':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(full) });
        res.write(full.slice(0, Math.floor(full.length / 2)));
        return;
      case 'reset':
        res.socket?.resetAndDestroy();
        return;
      case 'truncated':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(full) });
        // Closed once the half is written: a close straight away could drop it unsent.
        res.write(full.slice(0, Math.floor(full.length / 2)), () => res.socket?.destroy());
        return;
      case 'non-json':
        return this.send(res, { status: 200, body: 'OK, decided: the first one' });
      case 'html-502':
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
        return;
      case 'huge':
        return this.send(res, { status: 200, body: { padding: 'x'.repeat(5 * 1024 * 1024) } });
      case 'redirect':
        res.writeHead(this.redirectStatus, { location: this.redirectTo, 'content-length': 0 });
        res.end();
        return;
      case 'wrong-shape':
        return this.send(res, { status: 200, body: this.wrongShape() });
      default: {
        if (fault.startsWith('echo-key-')) {
          const echoed = echoedKey(this.credentialOf(request), fault.slice('echo-key-'.length) as EchoEncoding);
          return this.send(res, {
            status: 401,
            body: withMessage(this.errorBody(401), `invalid credentials: ${echoed}`),
          });
        }
        const status = Number(fault.replace('status-', ''));
        const headers: Record<string, string> = status === 429 || status === 503 ? { 'retry-after': '1' } : {};
        return this.send(res, { status, body: this.errorBody(status), headers });
      }
    }
  }
}

/**
 * An engine's error body with its human message replaced, so each fake echoes in its own wire shape: the
 * first string under `message`, `detail` or `error`, depth first (FastAPI `detail`, `{error: {message}}`,
 * Ollama's `{error}`, Cloudflare's `errors[0].message`).
 */
function withMessage(body: unknown, message: string): unknown {
  let replaced = false;
  const walk = (value: unknown): unknown => {
    if (replaced || typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map(walk);
    const copy: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (!replaced && ['message', 'detail', 'error'].includes(key) && typeof field === 'string') {
        copy[key] = message;
        replaced = true;
      } else copy[key] = walk(field);
    }
    return copy;
  };
  const result = walk(body);
  return replaced ? result : { detail: message };
}
