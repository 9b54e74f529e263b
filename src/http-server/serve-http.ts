import { performance } from 'node:perf_hooks';
import type { HttpOAuthSettings } from '../config/config-keys';
import type { DecisionService } from '../decisions/pipeline/decision.service';
import type { EndpointLoad } from '../decisions/pools/endpoint-load.service';
import type { HealthService } from '../decisions/pipeline/health.service';
import { short } from '../mcp/envelope';
import type { McpServerService } from '../mcp/mcp-server.service';
import type { DecisionsApi } from '../decisions-api/decisions-api';
import { CallerAccess, type OAuthAccess } from './callers/caller-access';
import { RateLimiter } from './callers/rate-limiter';
import { HttpGateway, HTTP_REQUEST_ID_HEADER } from './http-gateway';
import { listen } from './http-listener';
import type { HttpServeOptions } from './http-options';
import { mcpHttpHandler } from './mcp-http';
import { GatewayMetrics } from './gateway-metrics';
import { ProtectedResource } from './oauth/protected-resource';
import { TokenVerifier } from './oauth/token-verifier';
import { ReadinessCheck } from './readiness';
import { IN_PROCESS, type SharedState } from '../state/shared-state';

export interface ServeHttpDeps {
  mcp: Pick<McpServerService, 'createServer' | 'drainBoundMs'>;
  decisions: Pick<DecisionService, 'observe'>;
  /** Every provider name the config can use, for the metrics' labels. */
  providerNames: readonly string[];
  /** Each endpoint's load, read at each scrape. */
  endpoints?: Pick<EndpointLoad, 'all'>;
  health: Pick<HealthService, 'health'>;
  /** The deployment's shared state (`[state] url`): rate buckets and `system1_state_store_up`; absent: in-process. */
  state?: SharedState;
  /** `/v1/decisions` and `/v1/systemone`; absent: not served. */
  decisionsApi?: Pick<DecisionsApi, 'answer'>;
  log: (line: string) => void;
  warn: (line: string) => void;
}

/** `serve-http` running: where clients reach it, and how it stops. */
export interface RunningHttpServer {
  url: string;
  /** How long a drain waits for the answers in flight: the longest a decision may take, and a margin. */
  drainBoundMs: number;
  /** Drains (see Listening.drain) and stops counting; resolves with the requests cut off unanswered. */
  stop(): Promise<number>;
}

/**
 * Starts the MCP tools over Streamable HTTP with health, readiness and metrics beside them. Loaded only by
 * `serve-http` (the SDK's HTTP entries and prom-client would slow every other command's start).
 */
export async function startHttpServer(deps: ServeHttpDeps, options: HttpServeOptions): Promise<RunningHttpServer> {
  let gateway: HttpGateway | undefined;
  const access = new CallerAccess(
    options.tokens,
    options.policies,
    new RateLimiter(() => performance.now(), deps.state),
    options.oauth && oauthAccess(options.oauth),
  );
  const metrics = new GatewayMetrics(
    deps.decisions,
    () => gateway?.inFlight ?? 0,
    deps.providerNames,
    () => deps.endpoints?.all() ?? [],
    (caller) => access.label(caller),
  );
  if (deps.state && deps.state !== IN_PROCESS) metrics.watchStateStore(() => deps.state!.up());
  gateway = new HttpGateway({
    // The SDK's refusals may quote what the client sent (a header, a method): one clipped line.
    mcp: mcpHttpHandler(
      (requestId) => deps.mcp.createServer(requestId),
      HTTP_REQUEST_ID_HEADER,
      (error) => deps.warn(`protocol error: ${short(error.message)}`),
    ),
    readiness: new ReadinessCheck(() => deps.health.health()),
    metrics,
    limits: options.limits,
    access,
    ...(deps.decisionsApi && { decisionsApi: deps.decisionsApi }),
    log: deps.log,
    warn: deps.warn,
    now: () => Date.now(),
  });
  let listening;
  try {
    listening = await listen(gateway, options, deps.warn);
  } catch (error) {
    metrics.close();
    throw error;
  }
  const drainBoundMs = deps.mcp.drainBoundMs();
  return {
    url: listening.url,
    drainBoundMs,
    stop: async () => {
      const cutOff = await listening.drain(drainBoundMs);
      metrics.close();
      return cutOff;
    },
  };
}

/** serve-http as an OAuth resource server: the token check and what it publishes, from `[http.oauth]`. */
function oauthAccess(settings: HttpOAuthSettings): OAuthAccess {
  return { verifier: new TokenVerifier(settings), resource: new ProtectedResource(settings) };
}
