/**
 * The rules of who may call serve-http and what they may do, without sockets: named tokens from the
 * environment, each caller's tools, OAuth scopes and rate, and what a 401 or 403 tells a client.
 */
import type { IncomingMessage } from 'node:http';
import { loadConfig } from '../../../src/config/config.loader';
import {
  CallerAccess,
  type Caller,
  type OAuthAccess,
  type Refusal,
} from '../../../src/http-server/callers/caller-access';
import { CallerPolicies } from '../../../src/http-server/callers/caller-policy';
import { CallerTokens } from '../../../src/http-server/callers/caller-tokens';
import { RateLimiter } from '../../../src/http-server/callers/rate-limiter';
import { ProtectedResource } from '../../../src/http-server/oauth/protected-resource';
import type { TokenCheck } from '../../../src/http-server/oauth/token-verifier';

const OAUTH = {
  issuer: 'https://idp.example/realms/team',
  audience: 'https://system1.example/mcp',
  caller_claim: 'sub',
  scope_prefix: 'system1:',
  clock_skew_s: 30,
};

function configOf(toml: string) {
  return loadConfig({ env: { HOME: '/test/home', SYSTEM1_CONFIG: '/test/config.toml' }, readFile: () => toml });
}

function accessWith(
  env: Record<string, string>,
  toml = '',
  options: { now?: () => number; tokens?: Record<string, TokenCheck> } = {},
) {
  const config = configOf(toml);
  const oauth: OAuthAccess | undefined = options.tokens && {
    verifier: { verify: async (token) => options.tokens![token] ?? { ok: false, why: 'the token is not valid' } },
    resource: new ProtectedResource(OAUTH),
  };
  return new CallerAccess(
    CallerTokens.fromEnv(env).tokens,
    new CallerPolicies(config.http, config.httpCallers),
    new RateLimiter(options.now ?? (() => 0)),
    oauth,
  );
}

const request = (...authorization: string[]) =>
  ({ headersDistinct: authorization.length > 0 ? { authorization } : {} }) as unknown as IncomingMessage;
const isRefusal = (value: Caller | Refusal): value is Refusal => 'status' in value;

describe('CallerTokens', () => {
  it('names each caller by its variable, SYSTEM1_HTTP_TOKEN as default, and finds the caller of a token', () => {
    const { tokens, problems } = CallerTokens.fromEnv({
      SYSTEM1_HTTP_TOKEN: 'a1',
      SYSTEM1_HTTP_TOKEN_CI_BOT: 'b2',
      SYSTEM1_HTTP_TOKEN_lower: 'c3',
      PATH: '/bin',
    });
    expect(problems).toEqual([]);
    expect(tokens.names.sort()).toEqual(['ci_bot', 'default']);
    expect([
      tokens.identify('a1'),
      tokens.identify('b2'),
      tokens.identify('c3'),
      tokens.identify(undefined),
      tokens.identify(''),
    ]).toEqual(['default', 'ci_bot', undefined, undefined, undefined]);
  });

  it('reports a blank token, a caller named twice and one token shared by two callers, never the token itself', () => {
    const { problems } = CallerTokens.fromEnv({
      SYSTEM1_HTTP_TOKEN: '  ',
      SYSTEM1_HTTP_TOKEN_DEFAULT: 'dup-9',
      SYSTEM1_HTTP_TOKEN_A: 'shared-7',
      SYSTEM1_HTTP_TOKEN_B: 'shared-7',
    });
    expect(problems).toEqual([
      'SYSTEM1_HTTP_TOKEN is set but blank; give it a token, or unset it to run on loopback without one',
      'SYSTEM1_HTTP_TOKEN_A and SYSTEM1_HTTP_TOKEN_B hold the same token: give each caller its own, so one can be revoked alone',
    ]);
    expect(CallerTokens.fromEnv({ SYSTEM1_HTTP_TOKEN: 'x1', SYSTEM1_HTTP_TOKEN_DEFAULT: 'x2' }).problems).toEqual([
      'SYSTEM1_HTTP_TOKEN and SYSTEM1_HTTP_TOKEN_DEFAULT both name the caller "default"; keep one',
    ]);
  });
});

describe('RateLimiter', () => {
  it('lets a burst through, then one decision per 60/rate seconds, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    expect([limiter.take('a', 60, 2), limiter.take('a', 60, 2), limiter.take('a', 60, 2)]).toEqual([0, 0, 1000]);
    expect(limiter.take('b', 60, 2)).toBe(0);
    now = 999;
    expect(limiter.take('a', 60, 2)).toBe(1);
    now = 1000;
    expect(limiter.take('a', 60, 2)).toBe(0);
    now = 1_000_000;
    expect([limiter.take('a', 60, 2), limiter.take('a', 60, 2), limiter.take('a', 60, 2)]).toEqual([0, 0, 1000]);
    expect(limiter.take('a', 0, 1)).toBe(0);
  });
});

describe('CallerAccess', () => {
  it('needs no token on loopback with none set, and then every request is the caller default', async () => {
    const access = accessWith({});
    expect(access.required).toBe(false);
    expect(await access.identify(request())).toMatchObject({ name: 'default' });
  });

  it('refuses a missing, wrong or doubled token with a static challenge', async () => {
    const access = accessWith({ SYSTEM1_HTTP_TOKEN_ALICE: 'tok-a' });
    expect(await access.identify(request('Bearer tok-a'))).toMatchObject({ name: 'alice' });
    const missing = await access.identify(request());
    const wrong = await access.identify(request('Bearer tok-b'));
    const doubled = await access.identify(request('Bearer tok-a', 'Bearer tok-a'));
    expect(
      [missing, wrong, doubled].map(
        (answer) => isRefusal(answer) && [answer.status, answer.headers?.['www-authenticate']],
      ),
    ).toEqual([
      [401, 'Bearer realm="system1"'],
      [401, 'Bearer realm="system1", error="invalid_token"'],
      [401, 'Bearer realm="system1", error="invalid_token"'],
    ]);
  });

  it.each([
    ['system1_decide', 429],
    ['system1_ask', 429],
    ['system1_health', undefined],
    ['system1_capabilities', undefined],
  ])(
    "counts %s's calls against the caller's rate only when they are decisions (second call: %s)",
    async (tool, second) => {
      const access = accessWith({ SYSTEM1_HTTP_TOKEN: 'tok' }, '[http]\nrate_per_minute = 1\nburst = 1\n');
      const caller = (await access.identify(request('Bearer tok'))) as Caller;
      expect(await access.admit(caller, tool)).toBeUndefined();
      expect((await access.admit(caller, tool))?.status).toBe(second);
    },
  );

  it("holds each caller to its own tools and rate, a table's missing keys taken from [http]", async () => {
    const access = accessWith(
      { SYSTEM1_HTTP_TOKEN_ALICE: 'tok-a', SYSTEM1_HTTP_TOKEN_BOB: 'tok-b' },
      '[http]\nrate_per_minute = 60\nburst = 1\n[http.callers.bob]\ntools = ["system1_health", "system1_ask"]\n',
    );
    const alice = (await access.identify(request('Bearer tok-a'))) as Caller;
    const bob = (await access.identify(request('Bearer tok-b'))) as Caller;
    expect([bob.policy.ratePerMinute, bob.policy.burst]).toEqual([60, 1]);
    expect(await access.admit(bob, 'system1_decide')).toMatchObject({
      status: 403,
      message: expect.stringContaining(
        'the caller "bob" may not use system1_decide (it may use: system1_health, system1_ask)',
      ),
    });
    expect(await access.admit(bob, 'system1_health')).toBeUndefined();
    expect(await access.admit(bob, 'system1_ask')).toBeUndefined();
    // held until the next decision fits (1 s at 60 a minute), so nothing is left to wait after it
    expect(await access.admit(bob, 'system1_ask')).toMatchObject({
      status: 429,
      holdMs: 1000,
      headers: { 'retry-after': '0' },
    });
    // health is not a decision; alice has a bucket of her own; an unknown tool is the MCP server's to refuse
    expect([
      await access.admit(bob, 'system1_health'),
      await access.admit(alice, 'system1_decide'),
      await access.admit(bob, 'no_such_tool'),
      await access.admit(bob, undefined),
    ]).toEqual([undefined, undefined, undefined, undefined]);
    expect(access.scopeOf(bob)).toEqual({
      name: 'bob',
      callerModels: [],
      widenedBy: '[http.callers.bob] caller_models',
    });
    expect(access.scopeOf(alice).widenedBy).toBe('[http] caller_models');
  });

  it('refuses a caller the tools its policy leaves out even when they decide nothing: health and capabilities too', async () => {
    const access = accessWith({ SYSTEM1_HTTP_TOKEN_CI: 'tok-ci' }, '[http.callers.ci]\ntools = ["system1_decide"]\n');
    const ci = (await access.identify(request('Bearer tok-ci'))) as Caller;
    for (const tool of ['system1_health', 'system1_capabilities', 'system1_ask'])
      expect(await access.admit(ci, tool)).toEqual({
        status: 403,
        message:
          `the caller "ci" may not use ${tool} (it may use: system1_decide); ` +
          'the operator sets this in [http.callers.<name>] tools',
      });
    expect(await access.admit(ci, 'system1_decide')).toBeUndefined();
  });

  it('labels the callers the config names by name and every other caller as other, so a claim cannot grow the metrics', () => {
    const access = accessWith({ SYSTEM1_HTTP_TOKEN_ALICE: 'tok-a' }, '[http.callers.team-agent]\nburst = 3\n');
    const names = ['alice', 'default', 'team-agent', 'someone-else', 'oauth:team-agent', 'oauth:someone-else'];
    expect(names.map((name) => access.label(name))).toEqual([
      'alice',
      'default',
      'team-agent',
      'other',
      'oauth:team-agent',
      'other',
    ]);
  });

  it('takes an OAuth token beside the static ones, points a client without one at the metadata, and asks for the scope a tool needs', async () => {
    const tokens: Record<string, TokenCheck> = {
      'jwt-full': { ok: true, caller: 'agent-1', scopes: new Set(['system1:decide', 'system1:read']) },
    };
    const access = accessWith({ SYSTEM1_HTTP_TOKEN: 'tok-static' }, '', { tokens });
    expect(await access.identify(request('Bearer tok-static'))).toMatchObject({ name: 'default' });
    const agent = (await access.identify(request('Bearer jwt-full'))) as Caller;
    expect(agent).toMatchObject({ name: 'oauth:agent-1' });
    expect(await access.identify(request())).toMatchObject({
      status: 401,
      headers: {
        'www-authenticate':
          'Bearer resource_metadata="https://system1.example/.well-known/oauth-protected-resource/mcp"',
      },
    });
    expect(await access.identify(request('Bearer jwt-bad'))).toMatchObject({
      status: 401,
      headers: {
        'www-authenticate': expect.stringContaining(
          'error="invalid_token", error_description="the token is not valid"',
        ),
      },
    });
    expect(await access.admit(agent, 'system1_decide')).toBeUndefined();
    expect(await access.admit(agent, 'system1_ask')).toEqual({
      status: 403,
      message: 'insufficient scope: system1_ask needs the scope system1:ask',
      headers: {
        'www-authenticate':
          'Bearer resource_metadata="https://system1.example/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", error_description="system1_ask needs the scope system1:ask", scope="system1:ask"',
      },
    });
    expect(access.mayReadMetrics(agent)).toBeUndefined();
    const writer = { ...agent, scopes: new Set(['system1:decide']) };
    expect(access.mayReadMetrics(writer)).toMatchObject({ status: 403 });
  });
});

describe('OAuth subjects and static callers', () => {
  const everyScope = new Set(['system1:decide', 'system1:ask', 'system1:read']);
  const claims = (...callers: string[]): Record<string, TokenCheck> =>
    Object.fromEntries(callers.map((caller) => [`jwt-${caller}`, { ok: true, caller, scopes: everyScope }]));

  it("never makes a token whose claim spells default or a static caller's name that caller: own bucket, own cache scope", async () => {
    const toml = '[http]\nrate_per_minute = 1\nburst = 1\n[http.callers.alice]\nrate_per_minute = 1\nburst = 1\n';
    const env = { SYSTEM1_HTTP_TOKEN: 'tok-static', SYSTEM1_HTTP_TOKEN_ALICE: 'tok-alice' };
    const access = accessWith(env, toml, { tokens: claims('default', 'alice') });
    const [staticDefault, staticAlice, oauthDefault, oauthAlice] = (await Promise.all(
      ['tok-static', 'tok-alice', 'jwt-default', 'jwt-alice'].map((token) =>
        access.identify(request(`Bearer ${token}`)),
      ),
    )) as Caller[];
    expect([staticDefault, staticAlice, oauthDefault, oauthAlice].map((caller) => caller.name)).toEqual([
      'default',
      'alice',
      'oauth:default',
      'oauth:alice',
    ]);
    expect(
      new Set([staticDefault, staticAlice, oauthDefault, oauthAlice].map((c) => access.scopeOf(c).name)).size,
    ).toBe(4);
    // One decision each: the static callers' buckets are theirs alone.
    for (const caller of [staticDefault, staticAlice, oauthDefault, oauthAlice])
      expect(await access.admit(caller, 'system1_decide')).toBeUndefined();
    for (const caller of [staticDefault, staticAlice, oauthDefault, oauthAlice])
      expect(await access.admit(caller, 'system1_decide')).toMatchObject({ status: 429 });
    // The operator's table for alice applies to both (the same policy on purpose), named as what widens it.
    expect(access.scopeOf(oauthAlice).widenedBy).toBe('[http.callers.alice] caller_models');
    expect(access.scopeOf(oauthDefault).widenedBy).toBe('[http] caller_models');
  });

  it('gives a claim of default the [http] policy, never the table of the static caller default', async () => {
    const toml = '[http]\ntools = ["system1_health"]\n[http.callers.default]\ntools = ["*"]\n';
    const access = accessWith({ SYSTEM1_HTTP_TOKEN: 'tok-static' }, toml, { tokens: claims('default') });
    const staticDefault = (await access.identify(request('Bearer tok-static'))) as Caller;
    const oauthDefault = (await access.identify(request('Bearer jwt-default'))) as Caller;
    expect(await access.admit(staticDefault, 'system1_decide')).toBeUndefined();
    expect(await access.admit(oauthDefault, 'system1_decide')).toMatchObject({ status: 403 });
  });

  it('holds a static caller to its rate while 10,000 OAuth subjects come and go', async () => {
    const toml = '[http]\nrate_per_minute = 1\nburst = 2\n';
    const subjects = Array.from({ length: 10_000 }, (_, i) => `subject-${i}`);
    const access = accessWith({ SYSTEM1_HTTP_TOKEN: 'tok-static' }, toml, { tokens: claims(...subjects) });
    const runaway = (await access.identify(request('Bearer tok-static'))) as Caller;
    expect([await access.admit(runaway, 'system1_decide'), await access.admit(runaway, 'system1_decide')]).toEqual([
      undefined,
      undefined,
    ]);
    let served = 0;
    for (const subject of subjects) {
      const caller = (await access.identify(request(`Bearer jwt-${subject}`))) as Caller;
      if ((await access.admit(caller, 'system1_decide')) === undefined) served++;
    }
    expect(served).toBe(10_000);
    expect(await access.admit(runaway, 'system1_decide')).toMatchObject({ status: 429 });
  });
});

describe('ProtectedResource', () => {
  it('publishes where the metadata is for a resource with and without a path, and the scopes with a prefix an IdP allows', () => {
    const entra = new ProtectedResource({ ...OAUTH, audience: 'https://system1.example', scope_prefix: 'system1.' });
    expect([entra.metadataUrl, entra.metadataPaths, entra.scopes]).toEqual([
      'https://system1.example/.well-known/oauth-protected-resource',
      ['/.well-known/oauth-protected-resource'],
      ['system1.decide', 'system1.ask', 'system1.read'],
    ]);
    const nested = new ProtectedResource(OAUTH);
    expect(nested.metadataPaths).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(nested.challenge({ code: 'invalid_token', description: 'say "no"' })).toBe(
      'Bearer resource_metadata="https://system1.example/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="say \'no\'"',
    );
  });
});
