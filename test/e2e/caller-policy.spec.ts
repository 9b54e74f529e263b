/**
 * One caller against everyone: what a caller of the built server (stdio, serve-http) may choose in
 * `system1_ask`'s `model`, and what its choices cannot do to the others (cool the chain, fill the server's
 * memory, spend the operator's keys on engines outside the chain). Engines are fakes on loopback.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AnthropicFake } from '../fakes/anthropic.fake';
import { type GatewaySession, type Json, Resources, requireBuild, type Sandbox } from './helpers/gateway';
import { HttpServerProcess, stopAll, structured } from './helpers/http-server-process';
import { send } from '../helpers/router-harness';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';

const resources = Resources.perTest();
let servers: HttpServerProcess[] = [];
let clients: Client[] = [];
const fakes: AnthropicFake[] = [];

beforeAll(() => requireBuild());
afterEach(async () => {
  await stopAll(servers, clients);
  servers = [];
  clients = [];
  await Promise.all(fakes.splice(0).map((fake) => fake.stop()));
});

const QUESTIONS = [{ id: 'merge', type: 'noul', instructions: 'Is the change safe to merge?' }];
const ask = (model?: Record<string, unknown>) => ({
  state: 'a one-line README fix',
  questions: QUESTIONS,
  ...(model && { model }),
});
const DECIDE = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };

/** A fake Anthropic API on loopback, with the key the replica's environment holds. */
async function anthropicFake(): Promise<{ fake: AnthropicFake; env: Record<string, string> }> {
  const fake = new AnthropicFake('sk-ant-operator-key-e2e');
  fake.models = {
    ...fake.models,
    'claude-haiku-4-5': 'Claude Haiku 4.5',
    'claude-opus-4': 'Claude Opus 4',
    'claude-does-not-exist': 'a model that fails',
  };
  fakes.push(fake);
  const url = await fake.start();
  return { fake, env: { ANTHROPIC_API_KEY: 'sk-ant-operator-key-e2e', SYSTEM1_ANTHROPIC_ENDPOINT: url.origin } };
}

async function serveHttp(
  toml: string,
  env: Record<string, string> = {},
  sandbox: Sandbox = resources.sandbox(),
): Promise<{ server: HttpServerProcess; client: Client }> {
  const server = await HttpServerProcess.start(sandbox, { SYSTEM1_CONFIG: sandbox.writeConfig(toml), ...env });
  servers.push(server);
  const client = await server.client();
  clients.push(client);
  return { server, client };
}

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<Json> =>
  structured(await client.callTool({ name, arguments: args }));
const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('a model a caller names is never the engine failing (stdio)', () => {
  it("three calls naming the primary's provider with a model it cannot run leave the primary to everyone else", async () => {
    const server = await resources.server({ config: '[gateway]\nprovider = "mock"\n' });
    for (let i = 0; i < 4; i++) {
      const { body, text } = await server.call(
        'system1_ask',
        ask({ provider: 'mock', model: 'no-such-checkpoint-7b' }),
      );
      expect(body.answers.merge).toMatchObject({
        status: 'error',
        error: {
          code: 'unavailable',
          message: 'provider "mock" is not usable: mock runs one model only (it has no model setting)',
        },
      });
      // The caller's model comes back once (where the attempt names it), and the server's paths never.
      expect(occurrences(text, 'no-such-checkpoint-7b')).toBe(1);
      expect(text).not.toContain(server.sandbox.dir);
    }
    const { body } = await server.decide(DECIDE);
    expect(body).toMatchObject({ status: 'decided', provider: 'mock' });
    expect(body.attempts).toEqual([{ provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null }]);
  });

  it('a chosen model that fails at the engine cools that model only, never the chain', async () => {
    const { fake, env } = await anthropicFake();
    fake.chooseFault = (request) =>
      (request.body as { model?: string }).model === 'claude-does-not-exist' ? 'status-500' : 'none';
    const server: GatewaySession = await resources.server({
      config: '[gateway]\nprovider = "anthropic"\nfallback = ["mock"]\n',
      env,
    });
    for (let i = 0; i < 3; i++)
      await server.call('system1_ask', ask({ provider: 'anthropic', model: 'claude-does-not-exist' }));
    const { body: chosen } = await server.call(
      'system1_ask',
      ask({ provider: 'anthropic', model: 'claude-does-not-exist' }),
    );
    expect(chosen.answers.merge.error.message).toMatch(/^cooling down: \d+ s left$/);
    expect(fake.requestsTo('/v1/messages')).toHaveLength(3);
    const { body } = await server.decide(DECIDE);
    expect(body).toMatchObject({ status: 'decided', provider: 'anthropic' });
    expect(body.attempts).toHaveLength(1);
  });
});

describe("a caller's model name comes back once", () => {
  it("in full where the attempt names it, cut short in the engine's message that repeats it", async () => {
    const { env } = await anthropicFake();
    const server = await resources.server({ config: '[gateway]\nprovider = "mock"\n', env });
    const name = `claude-${'x'.repeat(240)}`;
    const { text, body } = await server.call('system1_ask', ask({ provider: 'anthropic', model: name }));
    expect(body.fallbacks).toEqual([
      {
        provider: 'anthropic',
        model: name,
        error: expect.objectContaining({ code: 'provider_error', httpStatus: 404 }),
      },
    ]);
    expect(occurrences(text, name)).toBe(1);
    expect(body.answers.merge.error.message).toContain(`${name.slice(0, 40)}…`);
  });
});

describe('serve-http: the "not usable" reason a caller reads', () => {
  it("says what is wrong in one clean sentence, without the server's config path or the caller's model", async () => {
    const sandbox = resources.sandbox();
    const { client } = await serveHttp('[gateway]\nprovider = "mock"\n[http]\ncaller_models = ["*"]\n', {}, sandbox);
    const body = await call(client, 'system1_ask', ask({ provider: 'mock', model: 'no-such-checkpoint-7b' }));
    expect(body.answers.merge.error).toEqual({
      code: 'unavailable',
      message: 'provider "mock" is not usable: mock runs one model only (it has no model setting)',
    });
    expect(occurrences(JSON.stringify(body), 'no-such-checkpoint-7b')).toBe(1);
    expect(JSON.stringify(body)).not.toContain(sandbox.dir);
  });
});

describe('the model field is capped at the boundary', () => {
  it('refuses 120 calls naming distinct 900 KB models at the boundary, and keeps answering', async () => {
    const server = await resources.server({
      config: '[gateway]\nprovider = "laya"\n[providers.laya]\nendpoint = "http://127.0.0.1:9"\n',
      env: { NODE_OPTIONS: '--max-old-space-size=96' },
    });
    const errors: Json[] = [];
    for (let i = 0; i < 120; i++)
      errors.push(
        (await server.call('system1_ask', ask({ provider: 'laya', model: `${i}-${'m'.repeat(900 * 1024)}` }))).body
          .error,
      );
    expect((await server.health()).gateway_version).toEqual(expect.any(String));
    expect(new Set(errors.map((error) => JSON.stringify(error)))).toEqual(
      new Set([
        JSON.stringify({
          code: 'invalid_request',
          message: 'invalid request: model.model must be at most 256 characters',
        }),
      ]),
    );
  }, 120_000);

  it.each([
    ['model', { provider: 'mock', model: 'm'.repeat(900 * 1024) }],
    ['provider', { provider: 'p'.repeat(257) }],
  ])(
    'refuses a %s name over 256 characters as invalid_request naming the field, on serve-http',
    async (field, model) => {
      const { client } = await serveHttp(
        '[gateway]\nprovider = "mock"\n[http]\ncaller_models = ["*"]\nmax_body_bytes = 4194304\n',
      );
      const body = await call(client, 'system1_ask', ask(model));
      expect(body).toEqual({
        status: 'error',
        error: { code: 'invalid_request', message: `invalid request: model.${field} must be at most 256 characters` },
      });
    },
  );
});

describe('serve-http: a caller may choose only what the operator offers', () => {
  it('refuses an engine outside the chain even though the replica holds its key, and sends it nothing', async () => {
    const { fake, env } = await anthropicFake();
    const { client } = await serveHttp('[gateway]\nprovider = "mock"\n', env);
    for (const model of [
      { provider: 'anthropic', model: 'claude-opus-4' },
      { provider: 'anthropic' },
      { provider: 'mock', model: 'other' },
    ]) {
      const body = await call(client, 'system1_ask', ask(model));
      expect(body).toEqual({
        status: 'error',
        error: {
          code: 'invalid_request',
          message:
            'invalid request: model is not one that callers may choose here (allowed: mock; the operator adds more with [http] caller_models)',
        },
      });
    }
    expect(fake.requests).toHaveLength(0);
    // The chain itself, named or not, is every caller's.
    expect((await call(client, 'system1_ask', ask({ provider: 'mock' }))).model).toEqual({ provider: 'mock' });
    expect((await call(client, 'system1_ask', ask())).model).toEqual({ provider: 'mock' });
  });

  it('[http] caller_models widens it to exactly the models listed', async () => {
    const { fake, env } = await anthropicFake();
    const { client } = await serveHttp(
      '[gateway]\nprovider = "mock"\n[http]\ncaller_models = ["anthropic:claude-haiku-4-5"]\n',
      env,
    );
    const refused = await call(client, 'system1_ask', ask({ provider: 'anthropic', model: 'claude-opus-4' }));
    expect(refused.error).toEqual({
      code: 'invalid_request',
      message: expect.stringContaining('(allowed: mock, anthropic:claude-haiku-4-5;'),
    });
    expect(fake.requests).toHaveLength(0);
    const answered = await call(client, 'system1_ask', ask({ provider: 'anthropic', model: 'claude-haiku-4-5' }));
    expect(answered.model).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(fake.requestsTo('/v1/messages').map((request) => (request.body as { model: string }).model)).toEqual([
      'claude-haiku-4-5',
    ]);
  });

  it('does not start when [http] caller_models names a provider that does not exist', async () => {
    const sandbox = resources.sandbox();
    await expect(
      HttpServerProcess.start(sandbox, {
        SYSTEM1_CONFIG: sandbox.writeConfig('[gateway]\nprovider = "mock"\n[http]\ncaller_models = ["antropic:*"]\n'),
      }),
    ).rejects.toThrow(/\[http\] caller_models: "antropic:\*" names no configured or built-in provider/);
  });
});

describe('stdio keeps any configured provider, and may opt into the same rule', () => {
  it('sends a chosen off-chain model by default (the caller is the user who configured it)', async () => {
    const { fake, env } = await anthropicFake();
    const server = await resources.server({ config: '[gateway]\nprovider = "mock"\n', env });
    const { body } = await server.call('system1_ask', ask({ provider: 'anthropic', model: 'claude-opus-4' }));
    expect(body.model).toEqual({ provider: 'anthropic', model: 'claude-opus-4' });
    expect(fake.requestsTo('/v1/messages')).toHaveLength(1);
  });

  it('[gateway] caller_models = [] holds stdio callers to the chain', async () => {
    const { fake, env } = await anthropicFake();
    const server = await resources.server({ config: '[gateway]\nprovider = "mock"\ncaller_models = []\n', env });
    const { body } = await server.call('system1_ask', ask({ provider: 'anthropic', model: 'claude-opus-4' }));
    expect(body.error).toEqual({
      code: 'invalid_request',
      message: expect.stringContaining('the operator adds more with [gateway] caller_models'),
    });
    expect(fake.requests).toHaveLength(0);
  });
});

describe("/metrics: invented provider names never take the configured ones' labels", () => {
  it('counts a decision of the chain under its provider after 70 calls naming invented providers', async () => {
    const { server, client } = await serveHttp('[gateway]\nprovider = "mock"\n[http]\ncaller_models = ["*"]\n');
    for (let i = 0; i < 70; i++) await call(client, 'system1_ask', ask({ provider: `invented-${i}` }));
    expect(await call(client, 'system1_decide', DECIDE)).toMatchObject({ status: 'decided', provider: 'mock' });
    const families = parsePrometheusText((await send(server.port, { method: 'GET', path: '/metrics' })).text);
    expect(sampleValue(families, 'system1_decisions_total', { surface: 'system1_decide' })).toBe(1);
    expect(
      sampleValue(families, 'system1_decisions_total', {
        surface: 'system1_decide',
        status: 'answered',
        provider: 'mock',
      }),
    ).toBe(1);
    expect(sampleValue(families, 'system1_attempts_total', { provider: 'mock', outcome: 'answered' })).toBe(1);
  });
});
