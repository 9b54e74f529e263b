import { type TestingModule } from '@nestjs/testing';
import { ConfigStatus } from '../../../src/decisions/pipeline/config-status.service';
import { DecideService } from '../../../src/mcp/decide/decide.service';
import { ProviderRegistry } from '../../../src/decisions/registry/provider-registry.service';
import { gatewayApp, TEST_CONFIG_FILE } from '../../helpers/gateway-app';

describe('ProviderRegistry', () => {
  let app: TestingModule;
  const start = async (toml: string, env: Record<string, string> = {}) => (app = await gatewayApp({ toml, env }));
  const errors = () =>
    app
      .get(ConfigStatus)
      .errors()
      .map((e) => [e.file, e.key, e.message]);
  afterEach(() => app?.close());

  it('builds the chain in order with each member configured from its own table', async () => {
    await start(
      '[gateway]\nprovider = "sure"\nfallback = ["mock"]\n[providers.sure]\ntype = "mock"\nconfidence = 0.99',
    );
    expect(errors()).toEqual([]);
    expect(
      app
        .get(ProviderRegistry)
        .chain()
        .map(({ name, role }) => [name, role]),
    ).toEqual([
      ['sure', 'primary'],
      ['mock', 'fallback'],
    ]);
    const reply = await app.get(DecideService).decide({ question: 'Go?' });
    expect(reply).toMatchObject({ provider: 'sure', confidence: 0.99 });
  });

  it('reads SYSTEM1_<NAME>_<KEY> over the table, for aliases too', async () => {
    await start('[gateway]\nprovider = "slow-mock"\n[providers.slow-mock]\ntype = "mock"\nconfidence = 0.7', {
      SYSTEM1_SLOW_MOCK_CONFIDENCE: '0.65',
    });
    expect(await app.get(DecideService).decide({ question: 'Go?' })).toMatchObject({ confidence: 0.65 });
  });

  it.each([
    [
      '[gateway]\nprovider = "lyaa"',
      {},
      TEST_CONFIG_FILE,
      'gateway.provider',
      'names an unknown provider "lyaa" (available: anthropic, cloudflare, laya, mock, ollama, openai, openai-decisions, systemone, typesafe, von)',
    ],
    [
      '[gateway]\nprovider = "mock"',
      { SYSTEM1_PROVIDER: 'nope' },
      'environment',
      'SYSTEM1_PROVIDER',
      'names an unknown provider "nope"',
    ],
    [
      '[gateway]\nprovider = "mock"\nfallback = ["ghost"]',
      {},
      TEST_CONFIG_FILE,
      'gateway.fallback',
      'unknown provider "ghost"',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.mokc]\nconfidence = 1',
      {},
      TEST_CONFIG_FILE,
      'providers.mokc',
      'unknown provider "mokc"',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.mock]\nconfidense = 1',
      {},
      TEST_CONFIG_FILE,
      'providers.mock.confidense',
      'is not a setting of provider mock (settings: confidence, delay_s, fail, response, max_options, placeholder)',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.mock]\nconfidence = 2',
      {},
      TEST_CONFIG_FILE,
      'providers.mock.confidence',
      'must be a number in [0, 1], got 2',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.mock]\nmax_options = 1.5',
      {},
      TEST_CONFIG_FILE,
      'providers.mock.max_options',
      'must be an integer of at least 2',
    ],
    [
      '[gateway]\nprovider = "mock"',
      { SYSTEM1_MOCK_DELAY_S: 'soon' },
      'environment',
      'SYSTEM1_MOCK_DELAY_S',
      'must be a number in [0, 300], got "soon"',
    ],
    [
      '[gateway]\nprovider = "x"\n[providers.x]\ntype = 3',
      {},
      TEST_CONFIG_FILE,
      'providers.x.type',
      'must be the name of a provider definition',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.laya]\napi_key = "sk-1"',
      {},
      TEST_CONFIG_FILE,
      'providers.laya.api_key',
      'environment variables only (SYSTEM1_LAYA_API_KEY)',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.anthropic]\napi_key = "sk-1"',
      {},
      TEST_CONFIG_FILE,
      'providers.anthropic.api_key',
      'environment variables only (ANTHROPIC_API_KEY)',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.laya]\ntoken = "sk-1"',
      {},
      TEST_CONFIG_FILE,
      'providers.laya.token',
      'environment variables only (SYSTEM1_LAYA_API_KEY)',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.ghost]\napi_key = "sk-1"',
      {},
      TEST_CONFIG_FILE,
      'providers.ghost.api_key',
      'environment variables only (SYSTEM1_GHOST_API_KEY)',
    ],
    // Names of Object.prototype members are names like any other: unknown unless a table makes them known.
    [
      '[gateway]\nprovider = "constructor"',
      {},
      TEST_CONFIG_FILE,
      'gateway.provider',
      'names an unknown provider "constructor"',
    ],
    [
      '[gateway]\nprovider = "mock"\nfallback = ["__proto__"]',
      {},
      TEST_CONFIG_FILE,
      'gateway.fallback',
      'names an unknown provider "__proto__"',
    ],
    [
      '[gateway]\nprovider = "mock"',
      { SYSTEM1_FALLBACK: 'hasOwnProperty' },
      'environment',
      'SYSTEM1_FALLBACK',
      'names an unknown provider "hasOwnProperty"',
    ],
    [
      '[gateway]\nprovider = "mock"',
      { SYSTEM1_PROVIDER: 'toString' },
      'environment',
      'SYSTEM1_PROVIDER',
      'names an unknown provider "toString"',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.constructor]\nconfidence = 1',
      {},
      TEST_CONFIG_FILE,
      'providers.constructor',
      'unknown provider "constructor"',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.__proto__]\nconfidence = 1',
      {},
      TEST_CONFIG_FILE,
      'providers.__proto__',
      'unknown provider "__proto__"',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.mock]\nconstructor = 5',
      {},
      TEST_CONFIG_FILE,
      'providers.mock.constructor',
      'is not a setting of provider mock',
    ],
    [
      '[gateway]\nprovider = "mock"\n[providers.mock]\n__proto__ = 5',
      {},
      TEST_CONFIG_FILE,
      'providers.mock.__proto__',
      'is not a setting of provider mock',
    ],
    [
      '[gateway]\nprovider = "x"\n[providers.x]\ntype = "toString"',
      {},
      TEST_CONFIG_FILE,
      'gateway.provider',
      'names an unknown provider "toString"',
    ],
  ])('reports %j %j as a config error on %s %s', async (toml, env, file, key, words) => {
    await start(toml, env as Record<string, string>);
    const found = errors().find(([, k]) => k === key);
    expect(found).toBeDefined();
    expect(found![0]).toBe(file);
    expect(found![2]).toContain(words);
    expect(found![2]).toContain(key);
  });
});

describe('ProviderRegistry, with provider names like Object.prototype members', () => {
  let app: TestingModule;
  afterEach(() => app?.close());

  it.each(['constructor', '__proto__', 'hasOwnProperty'])(
    'runs a table named %s like any other alias',
    async (name) => {
      app = await gatewayApp({
        toml: `[gateway]\nprovider = "${name}"\nfallback = ["mock"]\n[providers.${name}]\ntype = "mock"\nconfidence = 0.75`,
      });
      expect(app.get(ConfigStatus).errors()).toEqual([]);
      expect(
        app
          .get(ProviderRegistry)
          .chain()
          .map((member) => member.name),
      ).toEqual([name, 'mock']);
      expect(await app.get(DecideService).decide({ question: 'Go?' })).toMatchObject({
        status: 'decided',
        provider: name,
        confidence: 0.75,
      });
    },
  );
});

describe('the shipped config example', () => {
  it('leaves a fresh install working: its commented provider tables raise no config error', async () => {
    const { readFileSync } = await import('node:fs');
    const example = readFileSync(require('node:path').join(__dirname, '..', '..', '..', 'config.example.toml'), 'utf8');
    const app = await gatewayApp({ toml: example, env: { SYSTEM1_PROVIDER: 'mock' } });
    try {
      expect(app.get(ConfigStatus).errors()).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('still checks the values of a table for a provider outside the chain', async () => {
    const app = await gatewayApp({ toml: '[gateway]\nprovider = "mock"\n[providers.ollama]\nendpoint = 3' });
    try {
      expect(
        app
          .get(ConfigStatus)
          .errors()
          .map((e) => e.key),
      ).toEqual(['providers.ollama.endpoint']);
    } finally {
      await app.close();
    }
  });
});
