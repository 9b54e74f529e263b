/**
 * The provider factories as a user coming from dsh-system1 calls them: `id` names the engine (in results,
 * attempts and its own messages), an option a factory does not take is refused by name, and without a key
 * every message names the variable that factory actually reads, so setting it is the fix.
 */
import { System1InputError } from '../../../src/decisions/errors/input-error';
import type { System1Provider } from '../../../src/decisions/registry/provider.interface';
import { createCloudflareProvider } from '../../../src/providers/factories/cloudflare';
import { createLayaProvider } from '../../../src/providers/factories/laya';
import { createTypesafeProvider } from '../../../src/providers/factories/typesafe';
import { CloudflareFake } from '../../fakes/cloudflare.fake';
import { LayaFake } from '../../fakes/laya.fake';
import { TypeSafeFake } from '../../fakes/typesafe.fake';
import { LibrarySandbox, THREE_QUESTIONS } from './library-setup';

const KEY = 'sk-test-FACTORY-OPTIONS-5';
const ASK = { state: 'The user was charged twice.', questions: { topic: THREE_QUESTIONS.topic } };

interface Fake {
  url: URL;
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
}
interface FactoryCase {
  factory: string;
  /** The variable the factory reads its key from, by default. */
  variable: string;
  /** The options the factory takes, in the order its error lists them. */
  takes: string;
  fake(): Fake & { accountId?: string };
  create(options: Record<string, unknown>): System1Provider & { readonly name: string };
}

const FACTORIES: FactoryCase[] = [
  {
    factory: 'createTypesafeProvider',
    variable: 'TYPESAFE_API_KEY',
    takes: 'id, baseURL, model, apiKey, apiKeyEnv, fetch',
    fake: () => new TypeSafeFake({ apiKey: KEY }),
    create: (options) => createTypesafeProvider(options as never),
  },
  {
    factory: 'createLayaProvider',
    variable: 'LAYA_API_KEY',
    takes: 'id, baseURL, model, allowRemote, apiKey, apiKeyEnv, fetch',
    fake: () => new LayaFake({ apiKey: KEY }),
    create: (options) => createLayaProvider(options as never),
  },
  {
    factory: 'createCloudflareProvider',
    variable: 'CLOUDFLARE_API_TOKEN',
    takes: 'id, baseURL, model, accountId, apiKey, apiKeyEnv, fetch',
    fake: () => new CloudflareFake({ apiKey: KEY }),
    create: (options) => createCloudflareProvider(options as never),
  },
];
const VARIABLES = [...FACTORIES.map((entry) => entry.variable), 'MY_ENGINE_KEY'];

let sandbox: LibrarySandbox;
let saved: Record<string, string | undefined>;
beforeEach(() => {
  sandbox = new LibrarySandbox();
  // A developer's own keys must not make a keyless test pass.
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) delete process.env[name];
});
afterEach(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await sandbox.close();
});

const probe = () => ({ signal: AbortSignal.timeout(10_000), requestId: 'factory-options' });

describe.each(FACTORIES)('$factory', ({ factory, variable, takes, fake: makeFake, create }) => {
  let fake: ReturnType<typeof makeFake>;
  beforeEach(async () => {
    fake = makeFake();
    await fake.start();
  });
  afterEach(() => fake.stop());
  /** What the engine needs beside its key: the fake's address (and Cloudflare's account). */
  const base = () => ({ baseURL: fake.url.origin, ...(fake.accountId && { accountId: fake.accountId }) });

  it('answers under its id: in the result, in the attempts and in its own messages', async () => {
    const refused = create({ ...base(), id: 'jevA', apiKey: 'sk-not-the-key' });
    const accepted = create({ ...base(), id: 'jevB', apiKey: KEY });
    expect([refused.name, accepted.name]).toEqual(['jevA', 'jevB']);
    const system1 = await sandbox.open(
      '[gateway]\nprovider = "mock"',
      {},
      {
        defaultModel: { provider: 'jevA' },
        fallbackModels: [{ provider: 'jevB' }],
      },
    );
    system1.registerProvider(refused);
    system1.registerProvider(accepted);

    const result = await system1.decide(ASK);
    expect(result.answers.topic).toMatchObject({ status: 'ok', answer: { type: 'choice', value: 'billing' } });
    expect(result.meta.requested.provider).toBe('jevA');
    expect(result.meta.executed?.provider).toBe('jevB');
    expect(result.meta.attempts).toEqual([
      expect.objectContaining({ provider: 'jevA', error: expect.objectContaining({ code: 'provider_error' }) }),
    ]);
    // The refused key is the one given, not a variable nobody set.
    expect(result.meta.attempts?.[0].error.message).toMatch(/apiKey option/);
    expect(result.meta.attempts?.[0].error.message).not.toMatch(/SYSTEM1_|_API_KEY|_API_TOKEN/);
  });

  it('refuses to be registered under a name other than its id, naming both', async () => {
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    const engine = create({ ...base(), id: 'jevX', apiKey: KEY });
    expect(() => system1.registerProvider('typesafe-2', engine)).toThrow(System1InputError);
    expect(() => system1.registerProvider('typesafe-2', engine)).toThrow(/"typesafe-2".*"jevX"/);
    // Under its id it is taken, either way of registering it.
    const dispose = system1.registerProvider('jevX', engine);
    dispose();
    system1.registerProvider(engine);
    const result = await system1.decide({ ...ASK, model: { provider: 'jevX' } });
    expect(result.meta.executed?.provider).toBe('jevX');
  });

  it('refuses an option it does not take, naming it and the ones it takes', () => {
    const refusal = (options: Record<string, unknown>) => {
      try {
        create({ ...base(), ...options });
      } catch (error) {
        return error;
      }
      return 'accepted';
    };
    for (const option of ['ids', 'apiKeyVar', 'timeoutMs']) {
      const error = refusal({ [option]: 'x' });
      expect(error).toBeInstanceOf(System1InputError);
      expect(error).toMatchObject({
        field: option,
        message: `${option} is not an option of ${factory}: it takes ${takes}`,
      });
    }
    expect(refusal({ id: '' })).toMatchObject({ field: 'id', message: 'id must be a non-empty string' });
    expect(refusal({ id: 42 })).toMatchObject({ field: 'id', message: 'id must be a non-empty string' });
    expect(refusal({ apiKey: '' })).toMatchObject({ field: 'apiKey' });
    expect(refusal({ apiKeyEnv: ' ' })).toMatchObject({ field: 'apiKeyEnv' });
    expect(refusal({ fetch: 'curl' })).toMatchObject({ field: 'fetch' });
  });

  it(`without a key names ${variable}, the variable it reads, and setting it makes the engine work`, async () => {
    const engine = create(base());
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('own', engine);

    const keyless = await system1.decide({ ...ASK, model: { provider: 'own' } });
    expect(keyless.answers.topic.status).toBe('error');
    const message = keyless.answers.topic.status === 'error' ? keyless.answers.topic.error.message : '';
    expect(message).toContain(variable);
    expect(message).not.toContain(`SYSTEM1_${variable}`);
    const health = await engine.health!(probe());
    expect(health).toMatchObject({ ok: false, detail: expect.stringContaining(variable) });
    expect(health.detail).not.toContain(`SYSTEM1_${variable}`);

    process.env[variable] = KEY;
    const keyed = await system1.decide({ ...ASK, model: { provider: 'own' } });
    expect(keyed.answers.topic).toMatchObject({ status: 'ok', answer: { type: 'choice', value: 'billing' } });
    expect(keyed.meta.executed?.provider).toBe('own');
    expect((await engine.health!(probe())).ok).toBe(true);
  });

  it('without a key names the variable apiKeyEnv chose, and reads the key from there', async () => {
    const engine = create({ ...base(), apiKeyEnv: 'MY_ENGINE_KEY' });
    const system1 = await sandbox.open('[gateway]\nprovider = "mock"');
    system1.registerProvider('own', engine);
    const keyless = await system1.decide({ ...ASK, model: { provider: 'own' } });
    expect(keyless.answers.topic).toMatchObject({
      status: 'error',
      error: { message: expect.stringContaining('MY_ENGINE_KEY') },
    });
    process.env[variable] = KEY; // the default variable is not the one chosen
    expect((await system1.decide({ ...ASK, model: { provider: 'own' } })).answers.topic.status).toBe('error');
    process.env.MY_ENGINE_KEY = KEY;
    expect((await system1.decide({ ...ASK, model: { provider: 'own' } })).answers.topic.status).toBe('ok');
  });
});
