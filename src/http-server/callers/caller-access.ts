import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { bearerToken } from '../../common/http/secret-check';
import type { CallerScope } from '../../decisions/pipeline/caller-scope';
import { DECLARED_TOOLS, TOOL_NAMES, type ToolName } from '../../mcp/tool-list';
import type { ProtectedResource } from '../oauth/protected-resource';
import type { TokenVerifier } from '../oauth/token-verifier';
import type { CallerPolicies, CallerPolicy } from './caller-policy';
import { type CallerTokens, DEFAULT_CALLER, HTTP_TOKEN_VARIABLE } from './caller-tokens';
import type { RateLimiter } from './rate-limiter';

/** Who sent a request, what it may do, and (for an OAuth token) the scopes it was granted. */
export interface Caller {
  /**
   * Who, for the rate bucket, the cache scope, logs and metrics: a static token's caller by its name
   * (`ci_bot`), an OAuth token's as `oauth:<claim value>`. Two namespaces, so no token an issuer signs can be
   * a static caller (`default` included) and spend its rate or read its cached answers.
   */
  name: string;
  /** The `[http.callers.<name>]` table that applies, when the config has one for this caller. */
  table?: string;
  policy: CallerPolicy;
  scopes?: ReadonlySet<string>;
}

/** How an OAuth caller's name begins: a static caller's name (from a variable name) never has a colon. */
export const OAUTH_CALLER_PREFIX = 'oauth:';

/** A request turned away: its status, the words of its JSON-RPC error, and headers (a challenge, Retry-After). */
export interface Refusal {
  status: number;
  message: string;
  headers?: OutgoingHttpHeaders;
  /** Answer only after this long: a 429 held until the caller's next decision would fit, at most a second. */
  holdMs?: number;
}

export interface OAuthAccess {
  verifier: Pick<TokenVerifier, 'verify'>;
  resource: ProtectedResource;
}

/** The tools whose calls are decisions (their declarations say so): each call counts against the caller's rate. */
const DECISION_TOOLS: ReadonlySet<string> = new Set(
  DECLARED_TOOLS.filter((tool) => tool.decides).map((tool) => tool.name),
);

/**
 * A 429 is answered when the caller's next decision would fit, but no later than this: a runaway client that
 * ignores Retry-After then loops at most once a second per connection, so its refusals cost the replica little.
 */
const MAX_HOLD_MS = 1000;

const isDecision = (tool: string | undefined) => tool !== undefined && DECISION_TOOLS.has(tool);

/** The metrics label of every caller the config does not name (OAuth callers are the issuer's to add). */
const OTHER_CALLERS = 'other';

/**
 * The one place serve-http decides who is calling and what they may do: named static tokens
 * (SYSTEM1_HTTP_TOKEN_<NAME>; SYSTEM1_HTTP_TOKEN is the caller `default`), JWT access tokens of the
 * `[http.oauth]` issuer, each caller's tools (and OAuth scopes) and its decisions per minute.
 */
export class CallerAccess {
  private readonly labelled: ReadonlySet<string>;

  constructor(
    private readonly tokens: CallerTokens,
    private readonly policies: CallerPolicies,
    private readonly limiter: RateLimiter,
    readonly oauth?: OAuthAccess,
  ) {
    const oauthTables = policies.configured.filter((name) => name !== DEFAULT_CALLER);
    this.labelled = new Set([
      DEFAULT_CALLER,
      ...tokens.names,
      ...policies.configured,
      ...oauthTables.map((name) => `${OAUTH_CALLER_PREFIX}${name}`),
    ]);
  }

  /** Whether /mcp and /metrics need a token (off only on loopback with no token and no issuer set). */
  get required(): boolean {
    return !this.tokens.none || this.oauth !== undefined;
  }

  /** The caller's value of the `caller` label: its name when the config names it, else `other` (bounded). */
  label(caller: string): string {
    return this.labelled.has(caller) ? caller : OTHER_CALLERS;
  }

  /** Who sent `req`: a static token's caller, an OAuth token's, or a refusal (401) saying how to authenticate. */
  async identify(req: IncomingMessage): Promise<Caller | Refusal> {
    if (!this.required) return this.staticCaller(DEFAULT_CALLER);
    // Node reads the first of repeated Authorization headers, a proxy in front may read the last: two are refused.
    const sent = req.headersDistinct.authorization ?? [];
    const token = sent.length === 1 ? bearerToken(sent[0]) : undefined;
    const named = token === undefined ? undefined : this.tokens.identify(token);
    if (named !== undefined) return this.staticCaller(named);
    if (this.oauth && token !== undefined) {
      const check = await this.oauth.verifier.verify(token);
      if (check.ok) return this.oauthCaller(check.caller, check.scopes);
      return this.unauthorised(check.why);
    }
    return this.unauthorised(sent.length === 0 ? undefined : 'the token is not one this server knows');
  }

  /**
   * Whether `caller` may call `tool` now: the tool must be in its policy (and, for an OAuth token, its scope
   * granted), and a decision must fit its rate, taken from the deployment's shared bucket while the store
   * answers. Other methods (tools/list, discovery) need only a caller. `route`: the HTTP route that asks under
   * the tool's permission (the served Decisions API), for the message.
   */
  async admit(caller: Caller, tool: string | undefined, route?: string): Promise<Refusal | undefined> {
    const refused = this.mayUse(caller, tool, route);
    if (refused !== undefined || !isDecision(tool)) return refused;
    const { ratePerMinute, burst } = caller.policy;
    const wait = this.limiter.takeShared(caller.name, ratePerMinute, burst, this.bucketOf(caller));
    return this.overRate(caller, typeof wait === 'number' ? wait : await wait);
  }

  /** Whether `caller` may call `tool` at all: its policy's tools and, for an OAuth token, the scope. */
  private mayUse(caller: Caller, tool: string | undefined, route?: string): Refusal | undefined {
    if (tool === undefined || !(TOOL_NAMES as readonly string[]).includes(tool)) return undefined;
    if (!caller.policy.tools.has(tool)) {
      const what = route === undefined ? tool : `${route} (it takes ${tool} among a caller's tools)`;
      return {
        status: 403,
        message:
          `the caller ${JSON.stringify(caller.name)} may not use ${what} (it may use: ` +
          `${[...caller.policy.tools].join(', ') || 'no tool'}); ` +
          'the operator sets this in [http.callers.<name>] tools',
      };
    }
    const scope = caller.scopes && this.oauth?.resource.scopeFor(tool as ToolName);
    if (scope !== undefined && !caller.scopes!.has(scope)) {
      const description = `${tool} needs the scope ${scope}`;
      return {
        status: 403,
        message: `insufficient scope: ${description}`,
        headers: {
          'www-authenticate': this.oauth!.resource.challenge({ code: 'insufficient_scope', description, scope }),
        },
      };
    }
    return undefined;
  }

  /** The static callers are few and the operator's: an issuer's many subjects never push their buckets out. */
  private bucketOf(caller: Caller): { kept: boolean } {
    return { kept: !caller.name.startsWith(OAUTH_CALLER_PREFIX) };
  }

  /** A 429 when the caller must wait `waitMs` for its next decision, held up to a second first. */
  private overRate(caller: Caller, waitMs: number): Refusal | undefined {
    if (waitMs === 0) return undefined;
    return {
      status: 429,
      message:
        `the caller ${JSON.stringify(caller.name)} is over its rate ` +
        `(${caller.policy.ratePerMinute} decisions a minute, burst ${caller.policy.burst}); ` +
        'retry after the Retry-After seconds',
      headers: { 'retry-after': String(Math.ceil(Math.max(0, waitMs - MAX_HOLD_MS) / 1000)) },
      holdMs: Math.min(waitMs, MAX_HOLD_MS),
    };
  }

  /** /metrics is read with a token; an OAuth caller needs the read scope. */
  mayReadMetrics(caller: Caller): Refusal | undefined {
    const scope = this.oauth?.resource.scopeFor('system1_health');
    if (!caller.scopes || scope === undefined || caller.scopes.has(scope)) return undefined;
    return {
      status: 403,
      message: `insufficient scope: /metrics needs the scope ${scope}`,
      headers: {
        'www-authenticate': this.oauth!.resource.challenge({
          code: 'insufficient_scope',
          description: `/metrics needs the scope ${scope}`,
          scope,
        }),
      },
    };
  }

  /** The scope a caller's decisions run in: its name and the models it may choose. */
  scopeOf(caller: Caller): CallerScope {
    return {
      name: caller.name,
      callerModels: caller.policy.callerModels,
      widenedBy: caller.table ? `[http.callers.${caller.table}] caller_models` : '[http] caller_models',
    };
  }

  private staticCaller(name: string): Caller {
    return this.withPolicy(name, name);
  }

  /**
   * An OAuth token's caller: `oauth:<claim>`, under `[http.callers.<claim>]` when the operator wrote one
   * (the same table a static caller of that name reads: the same policy, never the same bucket or cache).
   * `default` is the static SYSTEM1_HTTP_TOKEN's caller, so a claim spelling it gets `[http]`'s policy.
   */
  private oauthCaller(claim: string, scopes: ReadonlySet<string>): Caller {
    const name = `${OAUTH_CALLER_PREFIX}${claim}`;
    return { ...this.withPolicy(name, claim === DEFAULT_CALLER ? undefined : claim), scopes };
  }

  private withPolicy(name: string, table: string | undefined): Caller {
    const configured = table !== undefined && this.policies.configured.includes(table);
    return configured ? { name, table, policy: this.policies.for(table) } : { name, policy: this.policies.defaults };
  }

  private unauthorised(why: string | undefined): Refusal {
    if (this.oauth) {
      const challenge = this.oauth.resource.challenge(
        why === undefined ? undefined : { code: 'invalid_token', description: why },
      );
      return {
        status: 401,
        message: `this server needs an access token${why ? ` (${why})` : ''}: see ${this.oauth.resource.metadataUrl}`,
        headers: { 'www-authenticate': challenge },
      };
    }
    const error = why === undefined ? '' : ', error="invalid_token"';
    return {
      status: 401,
      message:
        `this server needs its token: send "Authorization: Bearer <token>" (the value of ${HTTP_TOKEN_VARIABLE}, ` +
        "or of your caller's SYSTEM1_HTTP_TOKEN_<NAME>)",
      headers: { 'www-authenticate': `Bearer realm="system1"${error}` },
    };
  }
}
