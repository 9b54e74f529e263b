import OpenAI, { APIError } from 'openai';
import { OpenAiUpstreamFake } from '../fakes/openai-upstream.fake';
import type { GatewayAppOptions } from './gateway-app';
import { type InProcessServer, startServeHttp } from './serve-http-in-process';
import { startServeOpenAi } from './serve-openai-in-process';

/** The two servers that serve the Decisions API: the same cases run against each. */
export const DECISIONS_SERVERS = ['serve-http', 'serve-openai'] as const;
export type DecisionsServerKind = (typeof DECISIONS_SERVERS)[number];

/** The app's own key for the model API behind the router: what its OpenAI client sends as the bearer. */
export const APP_KEY = 'sk-app-upstream-key-0417-never-forwarded';

/** A server under test, in this process, with how a client of it gets in. */
export interface DecisionsServer extends InProcessServer {
  kind: DecisionsServerKind;
  /** The router's upstream (a fake that records what reaches it); serve-http has none. */
  upstream?: OpenAiUpstreamFake;
  /** The headers a raw request needs to be let in; `token` instead of the server's own. */
  access(token?: string): Record<string, string>;
  /** An `openai` client of this server as its user writes it, with `token` instead of the server's own. */
  client(token?: string): OpenAI;
}

/**
 * Starts `kind` with this config. serve-http takes its token (`SYSTEM1_HTTP_TOKEN` of `env`) as the client's
 * API key; the router takes its own (`SYSTEM1_ROUTER_TOKEN`) in `x-system1-token`, beside the app's key for
 * the upstream, which it starts as a fake. `limits`: the router's body cap (serve-http reads `[http]`).
 */
export async function startDecisionsServer(
  kind: DecisionsServerKind,
  options: GatewayAppOptions,
  { port = 0, maxBodyBytes }: { port?: number; maxBodyBytes?: number } = {},
): Promise<DecisionsServer> {
  const env = options.env ?? {};
  if (kind === 'serve-http') {
    const server = await startServeHttp(options, port);
    const access = (token = env.SYSTEM1_HTTP_TOKEN) => ({ authorization: `Bearer ${token}` });
    const client = (token = env.SYSTEM1_HTTP_TOKEN) =>
      new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: token, maxRetries: 0 });
    return { ...server, kind, access, client };
  }
  const upstream = new OpenAiUpstreamFake();
  const setup = { upstream: await upstream.start(), ...(maxBodyBytes && { limits: { maxBodyBytes } }) };
  let server: InProcessServer;
  try {
    server = await startServeOpenAi(options, setup, port);
  } catch (error) {
    await upstream.stop();
    throw error;
  }
  const access = (token = env.SYSTEM1_ROUTER_TOKEN) => ({
    authorization: `Bearer ${APP_KEY}`,
    ...(token !== undefined && { 'x-system1-token': token }),
  });
  const client = (token = env.SYSTEM1_ROUTER_TOKEN) =>
    new OpenAI({
      baseURL: `${server.origin}/v1`,
      apiKey: APP_KEY,
      maxRetries: 0,
      ...(token !== undefined && { defaultHeaders: { 'x-system1-token': token } }),
    });
  return {
    ...server,
    kind,
    upstream,
    access,
    client,
    stop: async () => {
      await server.stop();
      await upstream.stop();
    },
  };
}

/** The error a request ends in (the client's class and fields). */
export async function failure(request: Promise<unknown>): Promise<APIError> {
  try {
    await request;
  } catch (error) {
    if (error instanceof APIError) return error;
    throw error;
  }
  throw new Error('the request succeeded');
}
