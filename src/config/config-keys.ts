import { delimiter } from 'node:path';
import { decimal, flag, integer, list, millisecondsOrAuto, type SettingType, text } from './setting-types';

/**
 * Every key of `[gateway]`, `[routing]`, `[skills]`, `[router]` and `[http]`: its default, its range and its variable.
 * The variable is `SYSTEM1_<KEY>` for `[gateway]` and `SYSTEM1_<SECTION>_<KEY>` for the others.
 */
export interface KeySpec<T = unknown> {
  type: SettingType<T>;
  /** `undefined` = derived after loading (routing's threshold and log file). */
  default: T | undefined;
}

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const threshold = decimal({ min: 0, max: 1 });

export const GATEWAY_KEYS = {
  provider: { type: text({ nonEmpty: true }), default: 'laya' },
  fallback: { type: list(','), default: [] as string[] },
  timeout_s: { type: decimal({ min: 0, max: 300, minExclusive: true }), default: 5.0 },
  min_confidence: { type: threshold, default: 0.6 },
  // A provider that timed out, or failed three times running, is skipped for an eighth of this, doubled at each
  // failure again up to this long; 0 turns it off.
  cooldown_s: { type: decimal({ min: 0, max: 3600 }), default: 30 },
  // When every engine of the chain is cooling down, wait for the first to recover (within the call's deadline)
  // rather than fail at once.
  wait_for_recovery: { type: flag(), default: false },
  // A pool's request not answered after this long is sent to a second replica too, the first answer wins;
  // "auto" is the pool's recent p95. 0 (or "off") sends no second copy.
  hedge_after_ms: { type: millisecondsOrAuto(300_000), default: 0 },
  // The share of a pool's requests that may be hedged, so a slow pool is not sent twice the load.
  hedge_budget: { type: decimal({ min: 0, max: 1, minExclusive: true }), default: 0.1 },
  // An identical request (engine, model, fits in force, state, questions) within this many seconds is answered
  // from the decision cache, no engine asked; 0 turns it off. Bounded by entries and by bytes.
  cache_ttl_s: { type: decimal({ min: 0, max: 86_400 }), default: 0 },
  cache_max_entries: { type: integer({ min: 1, max: 1_000_000 }), default: 10_000 },
  cache_max_bytes: { type: integer({ min: 64 * 1024, max: 1024 * 1024 * 1024 }), default: 16 * 1024 * 1024 },
  log_level: { type: text({ choices: LOG_LEVELS, upperCase: true }), default: 'INFO' },
  log_file: { type: text(), default: '' },
  // What a stdio caller may name in system1_ask's `model` besides the chain: `provider`, `provider:model`,
  // `provider:*`, or `*` (anything configured, dsh-system1's rule). serve-http has its own, [http] caller_models.
  caller_models: { type: list(','), default: ['*'] as string[] },
} satisfies Record<string, KeySpec>;

export const ROUTING_KEYS = {
  enabled: { type: flag(), default: false },
  hint: { type: flag(), default: true },
  // Windows paths contain ':', so the list separator follows the platform's PATH separator.
  log_dirs: { type: list(delimiter), default: [] as string[] },
  log_file: { type: text({ nonEmpty: true }), default: undefined },
  min_confidence: { type: threshold, default: undefined },
  // The route hook's whole time, start-up included: Claude Code waits on it before every prompt (its hook
  // timeout is 3 s); a slow machine may give it more, and it says nothing when the time is up.
  budget_ms: { type: integer({ min: 200, max: 10_000 }), default: 1500 },
} satisfies Record<string, KeySpec>;

export const SKILLS_KEYS = {
  enabled: { type: flag(), default: false },
  hint: { type: flag(), default: false },
  min_confidence: { type: threshold, default: 0.8 },
} satisfies Record<string, KeySpec>;

/**
 * The structured-output router (`system1 serve-openai`). Its optional token is a secret, so it is read from
 * SYSTEM1_ROUTER_TOKEN only, never from the file.
 */
export const ROUTER_KEYS = {
  host: { type: text({ nonEmpty: true }), default: '127.0.0.1' },
  // Anything but loopback exposes the fast engine and a relay to the upstream: an explicit opt-in.
  allow_non_loopback: { type: flag(), default: false },
  port: { type: integer({ min: 0, max: 65535 }), default: 8788 },
  upstream: { type: text({ nonEmpty: true }), default: 'https://api.openai.com/v1' },
  // Every field must reach it, and a wrong fast answer silently replaces a model's: stricter than the gateway's 0.6.
  min_confidence: { type: threshold, default: 0.8 },
  shadow: { type: flag(), default: false },
  shadow_log: { type: text({ nonEmpty: true }), default: undefined },
  // Host names callers may reach it by besides its own (a guard against DNS rebinding): `name` or `name:port`.
  allowed_hosts: { type: list(','), default: [] as string[] },
} satisfies Record<string, KeySpec>;

/**
 * The MCP tools over Streamable HTTP (`system1 serve-http`). Its bearer token is a secret, so it is read from
 * SYSTEM1_HTTP_TOKEN only, never from the file; an address other than loopback needs it.
 */
export const HTTP_KEYS = {
  host: { type: text({ nonEmpty: true }), default: '127.0.0.1' },
  port: { type: integer({ min: 0, max: 65535 }), default: 8750 },
  // Names callers may reach it by besides its own (a guard against DNS rebinding): `name` or `name:port`.
  allowed_hosts: { type: list(','), default: [] as string[] },
  // Browser origins allowed to call it besides its own address (`http://name:port`); others get 403.
  allowed_origins: { type: list(','), default: [] as string[] },
  // 0 = the stdio server's line limit, so a request one transport takes the other takes too.
  max_body_bytes: { type: integer({ min: 0, max: 64 * 1024 * 1024 }), default: 0 },
  // Requests answered at once; past it 503 with Retry-After, so a load balancer tries another replica.
  max_in_flight: { type: integer({ min: 1, max: 100_000 }), default: 128 },
  max_connections: { type: integer({ min: 1, max: 100_000 }), default: 512 },
  headers_timeout_s: { type: decimal({ min: 0, max: 600, minExclusive: true }), default: 10 },
  request_timeout_s: { type: decimal({ min: 0, max: 3600, minExclusive: true }), default: 30 },
  // A body with no byte for this long is cut off: a client trickling a body must not hold a connection for long.
  body_idle_timeout_s: { type: decimal({ min: 0, max: 600, minExclusive: true }), default: 5 },
  keep_alive_timeout_s: { type: decimal({ min: 0, max: 3600, minExclusive: true }), default: 5 },
  // What a caller may name in system1_ask's `model` besides the chain (its callers are strangers with a token,
  // and the engines run on the operator's keys): `provider`, `provider:model`, `provider:*`, or `*`.
  caller_models: { type: list(','), default: [] as string[] },
  // The tools a caller may call (`*` = all four); a caller's own [http.callers.<name>] table narrows or widens it.
  tools: { type: list(','), default: ['*'] as string[] },
  // Decisions (system1_decide and system1_ask calls) per minute per caller, a token bucket; 0 = no limit.
  rate_per_minute: { type: decimal({ min: 0, max: 1_000_000 }), default: 0 },
  // How many decisions a caller may make at once above its rate before it is held to it.
  burst: { type: integer({ min: 1, max: 1_000_000 }), default: 20 },
} satisfies Record<string, KeySpec>;

/**
 * `[http.callers.<name>]`: one named caller's policy on serve-http (the caller is named by its token's variable,
 * SYSTEM1_HTTP_TOKEN_<NAME>, or by the OAuth claim). Each key left out is the `[http]` key's value.
 */
export const HTTP_CALLER_KEYS = {
  tools: HTTP_KEYS.tools,
  caller_models: HTTP_KEYS.caller_models,
  rate_per_minute: HTTP_KEYS.rate_per_minute,
  burst: HTTP_KEYS.burst,
} satisfies Record<string, KeySpec>;

/**
 * `[http.oauth]`: serve-http as an OAuth 2.1 resource server. Present with an issuer, JWT access tokens of
 * that issuer, issued for `audience`, are accepted beside the static tokens.
 */
export const HTTP_OAUTH_KEYS = {
  // The authorization server's issuer URL; its metadata (RFC 8414, else OpenID discovery) names its JWKS.
  issuer: { type: text(), default: '' },
  // This server's resource URI (RFC 8707), e.g. https://system1.example.com/mcp: a token must be issued for it.
  audience: { type: text(), default: '' },
  // The claim that names the caller in logs, metrics and [http.callers.<name>].
  caller_claim: { type: text({ nonEmpty: true }), default: 'sub' },
  // Scopes are <prefix>decide, <prefix>ask and <prefix>read (health and capabilities).
  scope_prefix: { type: text({ nonEmpty: true }), default: 'system1:' },
  // Clocks of the issuer and this server may disagree this much on exp and nbf.
  clock_skew_s: { type: decimal({ min: 0, max: 600 }), default: 30 },
} satisfies Record<string, KeySpec>;

/**
 * `[engines]`: a team's own engines, for every process that reads the config (the servers, the library, the
 * hooks). See docs/writing-a-provider.md.
 */
export const ENGINES_KEYS = {
  // CommonJS modules, each exporting `engines`: a list of provider definition classes. A relative path is taken
  // from the config file's folder; Windows paths contain ':', so the separator is the platform's PATH one.
  modules: { type: list(delimiter), default: [] as string[] },
} satisfies Record<string, KeySpec>;

/**
 * `[state]`: the store every process of one deployment shares (per-caller rate buckets, cooldowns and trial
 * slots, the decision cache, the switches). The password is a secret, so it is read from SYSTEM1_STATE_PASSWORD
 * (or the URL in SYSTEM1_STATE_URL) only, never from the file.
 */
export const STATE_KEYS = {
  // redis:// or rediss:// (TLS); unset = everything stays in the process, as on one machine.
  url: { type: text(), default: '' },
  // Every key this deployment writes starts with it, so a second deployment on the same Redis sees none of them.
  prefix: { type: text({ nonEmpty: true }), default: 'system1:' },
  // Each store call's deadline: past it that call uses the process's own state, and the store counts as down.
  deadline_ms: { type: integer({ min: 1, max: 1000 }), default: 50 },
} satisfies Record<string, KeySpec>;

/** `[decisions]`: the served Decisions API (`/v1/decisions`, `/v1/systemone`); its keys are its model tables. */
export const DECISIONS_KEYS = {} satisfies Record<string, KeySpec>;

/**
 * `[decisions.models.<alias>]`: a model name the operator offers on `/v1/decisions` and `/v1/systemone`, answered
 * by its own chain (no variables: the names are the operator's own, as callers' are).
 */
export const DECISION_MODEL_KEYS = {
  // The engines that answer it, in order: `provider` (its configured model) or `provider/model`.
  chain: { type: list(','), default: [] as string[] },
  // Answers less confident than this come back as refusals (a request's x-system1-min-confidence overrides it);
  // unset: none is withheld.
  min_confidence: { type: threshold, default: undefined },
} satisfies Record<string, KeySpec>;

export const SECTIONS = {
  gateway: GATEWAY_KEYS,
  routing: ROUTING_KEYS,
  skills: SKILLS_KEYS,
  router: ROUTER_KEYS,
  http: HTTP_KEYS,
  engines: ENGINES_KEYS,
  decisions: DECISIONS_KEYS,
  state: STATE_KEYS,
} as const;
export type SectionName = keyof typeof SECTIONS;

type Values<K extends Record<string, KeySpec>> = {
  [P in keyof K]: K[P] extends KeySpec<infer T> ? T : never;
};

export type GatewaySettings = Values<typeof GATEWAY_KEYS> & { log_level: LogLevel };
export type RoutingSettings = Values<typeof ROUTING_KEYS>;
export type SkillsSettings = Values<typeof SKILLS_KEYS>;
export type RouterSettings = Values<typeof ROUTER_KEYS>;
export type HttpSettings = Values<typeof HTTP_KEYS>;
export type EnginesSettings = Values<typeof ENGINES_KEYS>;
export type StateSettings = Values<typeof STATE_KEYS>;
export type HttpCallerSettings = Values<typeof HTTP_CALLER_KEYS>;
export type HttpOAuthSettings = Values<typeof HTTP_OAUTH_KEYS>;
export type DecisionModelSettings = { chain: string[]; min_confidence?: number };

/**
 * `SYSTEM1_<KEY>` for `[gateway]`, `SYSTEM1_<SECTION>_<KEY>` for the others (`http.oauth` -> `SYSTEM1_HTTP_OAUTH_`).
 */
export function envName(section: string, key: string): string {
  const prefix = section === 'gateway' ? 'SYSTEM1_' : `SYSTEM1_${section.toUpperCase().replace(/\./g, '_')}_`;
  return prefix + key.toUpperCase();
}
