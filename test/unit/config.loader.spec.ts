import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FILE_CAPS } from '../../src/common/regular-file';
import { loadConfig } from '../../src/config/config.loader';
import { feedFifo, fifoIt, makeFifo } from '../helpers/fifo';

const FILE = '/home/u/.config/system1/config.toml';
const BASE_ENV = { HOME: '/home/u' };

/** Loads with an in-memory file system: `files` maps path -> TOML text. */
function load(toml: string | null, env: Record<string, string> = {}) {
  return loadConfig({
    env: { ...BASE_ENV, ...env },
    platform: 'linux',
    readFile: (file) => {
      if (file === (env.SYSTEM1_CONFIG ?? FILE) && toml !== null) return toml;
      throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    },
  });
}

const keysOf = (errors: { key: string }[]) => errors.map((e) => e.key);

describe('config loader', () => {
  it('gives every key its documented default when there is no file', () => {
    const config = load(null);
    expect(config.configFile).toBeNull();
    expect(config.errors).toEqual([]);
    expect(config.gateway).toEqual({
      provider: 'laya',
      fallback: [],
      timeout_s: 5,
      min_confidence: 0.6,
      cooldown_s: 30,
      wait_for_recovery: false,
      hedge_after_ms: 0,
      hedge_budget: 0.1,
      cache_ttl_s: 0,
      cache_max_entries: 10_000,
      cache_max_bytes: 16 * 1024 * 1024,
      log_level: 'INFO',
      log_file: '',
      caller_models: ['*'],
    });
    expect(config.routing).toEqual({
      enabled: false,
      hint: true,
      log_dirs: [],
      log_file: path.join('/home/u/.system1-gateway', 'logs', 'routing.jsonl'),
      min_confidence: 0.6,
      budget_ms: 1500,
    });
    expect(config.skills).toEqual({ enabled: false, hint: false, min_confidence: 0.8 });
    expect(config.router).toEqual({
      host: '127.0.0.1',
      allow_non_loopback: false,
      port: 8788,
      upstream: 'https://api.openai.com/v1',
      min_confidence: 0.8,
      shadow: false,
      shadow_log: path.join('/home/u/.system1-gateway', 'logs', 'router-shadow.jsonl'),
      allowed_hosts: [],
    });
    expect(config.installDir).toBe('/home/u/.system1-gateway');
  });

  it('reads [http.callers.<name>] with each missing key taken from [http], and [http.oauth] from the file or its variables', () => {
    const config = load(
      '[http]\nrate_per_minute = 100\nburst = 5\n[http.callers.alice]\ntools = ["system1_health"]\n[http.callers."team agent"]\nburst = 1\n',
    );
    expect(config.httpCallers).toEqual({
      alice: { tools: ['system1_health'], caller_models: [], rate_per_minute: 100, burst: 5 },
    });
    expect(config.errors.map((error) => error.message)).toEqual([
      expect.stringContaining('http.callers "team agent" is not a caller name'),
    ]);
    expect(config.httpOAuth).toBeUndefined();
    const oauth = loadConfig({
      env: { HOME: '/h', SYSTEM1_CONFIG: '/c.toml', SYSTEM1_HTTP_OAUTH_AUDIENCE: 'https://s1.example/mcp' },
      readFile: () => '[http.oauth]\nissuer = "https://idp.example"\nbogus = 1\n',
    });
    expect(oauth.httpOAuth).toEqual({
      issuer: 'https://idp.example',
      audience: 'https://s1.example/mcp',
      caller_claim: 'sub',
      scope_prefix: 'system1:',
      clock_skew_s: 30,
    });
    expect(oauth.errors.map((error) => error.message)).toEqual([
      expect.stringContaining('http.oauth.bogus is not a known key of [http.oauth]'),
    ]);
  });

  it('reads [decisions.models.<alias>]: its chain and threshold, each problem naming its key', () => {
    const config = load(
      [
        '[decisions]',
        'bogus = 1',
        '[decisions.models.triage]',
        'chain = ["laya/typed-decisions", "systemone"]',
        'min_confidence = 0.7',
        '[decisions.models.open]',
        'chain = ["laya"]',
        '[decisions.models.empty]',
        'chain = []',
        '[decisions.models.loud]',
        'chain = ["laya"]',
        'min_confidence = 1.5',
        '[decisions.models.system1]',
        'chain = ["laya"]',
      ].join('\n'),
    );
    expect(config.decisionModels).toEqual({
      triage: { chain: ['laya/typed-decisions', 'systemone'], min_confidence: 0.7 },
      open: { chain: ['laya'] },
      loud: { chain: ['laya'] },
    });
    expect(keysOf(config.errors).sort()).toEqual([
      'decisions.bogus',
      'decisions.models',
      'decisions.models.empty.chain',
      'decisions.models.loud.min_confidence',
    ]);
    expect(config.errors.find((error) => error.key === 'decisions.models')?.message).toContain(
      'names the chain itself',
    );
  });

  it('finds the file under XDG_CONFIG_HOME, and SYSTEM1_CONFIG before it', () => {
    const seen: string[] = [];
    const readFile = (file: string) => {
      seen.push(file);
      return '';
    };
    loadConfig({ env: { HOME: '/h', XDG_CONFIG_HOME: '/xdg' }, platform: 'linux', readFile });
    loadConfig({
      env: { HOME: '/h', XDG_CONFIG_HOME: '/xdg', SYSTEM1_CONFIG: '/etc/s1.toml' },
      platform: 'linux',
      readFile,
    });
    loadConfig({ env: { HOME: '/h', APPDATA: 'C:/Users/u/AppData/Roaming' }, platform: 'win32', readFile });
    expect(seen).toEqual([
      '/xdg/system1/config.toml',
      '/etc/s1.toml',
      path.join('C:/Users/u/AppData/Roaming', 'system1', 'config.toml'),
    ]);
  });

  it('reads every section and lets the routing threshold follow the gateway one', () => {
    const config = load(`
[gateway]
provider = "mock"
fallback = ["a", "b"]
timeout_s = 2.5
min_confidence = 0.7
log_level = "debug"
log_file = "~/s1.log"
[routing]
enabled = true
log_dirs = ["~/work"]
[skills]
min_confidence = 0.9
`);
    expect(config.errors).toEqual([]);
    expect(config.configFile).toBe(FILE);
    expect(config.gateway).toMatchObject({
      provider: 'mock',
      fallback: ['a', 'b'],
      timeout_s: 2.5,
      log_level: 'DEBUG',
      log_file: '/home/u/s1.log',
    });
    expect(config.routing).toMatchObject({ enabled: true, min_confidence: 0.7, log_dirs: ['/home/u/work'] });
    expect(config.skills.min_confidence).toBe(0.9);
  });

  it('lets environment variables override the file, with lists split the documented way', () => {
    const config = load('[gateway]\nprovider = "laya"\ntimeout_s = 1\n', {
      SYSTEM1_PROVIDER: 'mock',
      SYSTEM1_FALLBACK: 'a, b,,c',
      SYSTEM1_TIMEOUT_S: '9',
      SYSTEM1_MIN_CONFIDENCE: '0.3',
      SYSTEM1_ROUTING_ENABLED: 'yes',
      SYSTEM1_ROUTING_LOG_DIRS: ['/r1', '/r2'].join(path.delimiter),
      SYSTEM1_SKILLS_HINT: 'true',
    });
    expect(config.errors).toEqual([]);
    expect(config.gateway).toMatchObject({
      provider: 'mock',
      fallback: ['a', 'b', 'c'],
      timeout_s: 9,
      min_confidence: 0.3,
    });
    expect(config.routing).toMatchObject({ enabled: true, log_dirs: ['/r1', '/r2'], min_confidence: 0.3 });
    expect(config.skills.hint).toBe(true);
  });

  it.each([
    ['[gateway]\ntimeout_s = 0', 'gateway.timeout_s', '(0, 300]'],
    ['[gateway]\ntimeout_s = 301', 'gateway.timeout_s', '(0, 300]'],
    ['[gateway]\ntimeout_s = "5"', 'gateway.timeout_s', 'a number'],
    ['[gateway]\nmin_confidence = 1.5', 'gateway.min_confidence', '[0, 1]'],
    ['[routing]\nmin_confidence = -0.1', 'routing.min_confidence', '[0, 1]'],
    ['[gateway]\nlog_level = "LOUD"', 'gateway.log_level', 'one of'],
    ['[gateway]\nfallback = "mock"', 'gateway.fallback', 'a list'],
    ['[gateway]\nprovder = "mock"', 'gateway.provder', 'not a known key of [gateway]'],
    ['[routing]\nenable = true', 'routing.enable', 'not a known key of [routing]'],
    ['[skills]\nthreshold = 0.5', 'skills.threshold', 'not a known key of [skills]'],
    ['[router]\nport = 70000', 'router.port', 'must be an integer in [0, 65535]'],
    ['[router]\ntoken = "t"', 'router.token', 'is a secret'],
    ['[gatway]\nprovider = "mock"', 'gatway', 'not a known section'],
    ['gateway = 3', 'gateway', 'must be a table'],
    // Names of Object.prototype members are keys like any other: unknown here, so reported.
    ['[constructor]\nx = 1', 'constructor', 'not a known section'],
    ['[__proto__]\nx = 1', '__proto__', 'not a known section'],
    ['[gateway.valueOf]', 'gateway.valueOf', 'not a known key of [gateway]'],
    ['[gateway]\n__proto__ = 1', 'gateway.__proto__', 'not a known key of [gateway]'],
    ['[routing]\nhasOwnProperty = true', 'routing.hasOwnProperty', 'not a known key of [routing]'],
  ])('reports %j as an error on %s naming the file', (toml, key, words) => {
    const { errors } = load(toml);
    expect(keysOf(errors)).toEqual([key]);
    expect(errors[0].file).toBe(FILE);
    expect(errors[0].message).toContain(FILE);
    expect(errors[0].message).toContain(key);
    expect(errors[0].message).toContain(words);
  });

  it('reads hedge_after_ms as milliseconds, "auto" or "off", from the file and the environment', () => {
    expect(load('[gateway]\nhedge_after_ms = 40\n').gateway.hedge_after_ms).toBe(40);
    expect(load('[gateway]\nhedge_after_ms = "auto"\n').gateway.hedge_after_ms).toBe('auto');
    expect(load('[gateway]\nhedge_after_ms = "off"\n').gateway.hedge_after_ms).toBe(0);
    expect(load(null, { SYSTEM1_HEDGE_AFTER_MS: 'AUTO' }).gateway.hedge_after_ms).toBe('auto');
    expect(load(null, { SYSTEM1_HEDGE_AFTER_MS: '12.5' }).gateway.hedge_after_ms).toBe(12.5);
    for (const bad of ['-1', '"soon"', 'true']) {
      const config = load(`[gateway]\nhedge_after_ms = ${bad}\n`);
      expect(keysOf(config.errors)).toEqual(['gateway.hedge_after_ms']);
      expect(config.errors[0].message).toContain('"auto" or "off"');
      expect(config.gateway.hedge_after_ms).toBe(0);
    }
    expect(keysOf(load('[gateway]\nhedge_budget = 0\n').errors)).toEqual(['gateway.hedge_budget']);
  });

  it('keeps the default of a key whose value is rejected', () => {
    expect(load('[gateway]\ntimeout_s = -1').gateway.timeout_s).toBe(5);
  });

  it('reports a TOML syntax error with its line and keeps the defaults', () => {
    const config = load('[gateway]\nprovider = "mock\n');
    expect(keysOf(config.errors)).toEqual(['(syntax)']);
    expect(config.errors[0].message).toMatch(new RegExp(`^${FILE}: TOML syntax error at line 2`));
    expect(config.gateway.provider).toBe('laya');
  });

  it('reports a missing file named by SYSTEM1_CONFIG, but not a missing default file', () => {
    expect(load(null).errors).toEqual([]);
    const { errors } = load(null, { SYSTEM1_CONFIG: '/nowhere/config.toml' });
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toBe('/nowhere/config.toml: the config file does not exist (named by SYSTEM1_CONFIG)');
  });

  it('names the variable when an environment value is invalid', () => {
    const { errors } = load(null, { SYSTEM1_TIMEOUT_S: 'abc', SYSTEM1_ROUTING_HINT: 'maybe' });
    expect(errors.map((e) => [e.file, e.key])).toEqual([
      ['environment', 'SYSTEM1_TIMEOUT_S'],
      ['environment', 'SYSTEM1_ROUTING_HINT'],
    ]);
    expect(errors[0].message).toBe('environment variable SYSTEM1_TIMEOUT_S must be a number in (0, 300], got "abc"');
  });

  it('refuses a secret in the file without ever repeating its value', () => {
    const secret = 'sk-live-DO-NOT-LEAK-42';
    const config = load(
      `[providers.laya]\napi_key = "${secret}"\nendpoint = "http://127.0.0.1:8765"\n[gateway]\ntoken = "${secret}"`,
    );
    expect(keysOf(config.errors)).toEqual(['gateway.token']);
    // Only the provider's definition knows its key variable: the registry reports provider secrets.
    expect(config.providerSecrets).toEqual({ laya: ['api_key'] });
    expect(JSON.stringify(config)).not.toContain(secret);
    expect(config.providerTables.laya).toEqual({ endpoint: 'http://127.0.0.1:8765' });
  });

  it('hands over provider tables named like Object.prototype members as tables of their own', () => {
    const config = load('[providers.__proto__]\nconfidence = 1\n[providers.constructor]\ntype = "mock"\napi_key = "k"');
    expect(config.errors).toEqual([]);
    expect(Object.keys(config.providerTables)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(config.providerTables, '__proto__')?.value).toEqual({ confidence: 1 });
    expect(Object.hasOwn(config.providerSecrets, 'constructor') && config.providerSecrets.constructor).toEqual([
      'api_key',
    ]);
    expect(Object.hasOwn(config.providerSecrets, '__proto__')).toBe(false);
  });

  it('hands provider tables over as written, for each provider to check', () => {
    const config = load('[providers.mock]\nconfidence = 0.8\n[providers.slow]\ntype = "mock"\ndelay_s = 3');
    expect(config.errors).toEqual([]);
    expect(config.providerTables).toEqual({ mock: { confidence: 0.8 }, slow: { type: 'mock', delay_s: 3 } });
  });
});

describe('config loader, reading the real file', () => {
  let dir: string;
  const feeders: { stop: () => void }[] = [];
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 's1-config-'))));
  afterEach(() => {
    for (const feeder of feeders.splice(0)) feeder.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const loadFile = (file: string) => loadConfig({ env: { HOME: dir, SYSTEM1_CONFIG: file }, platform: 'linux' });

  fifoIt('reports a FIFO named by SYSTEM1_CONFIG as a config problem instead of waiting on it', () => {
    const fifo = makeFifo(dir, 'config.toml');
    feeders.push(feedFifo(fifo, '[gateway]\nprovider = "mock"\n'));
    const config = loadFile(fifo);
    expect(config.errors.map((e) => [e.file, e.key])).toEqual([[fifo, '(file)']]);
    expect(config.errors[0].message).toContain(`${fifo}: the config file cannot be read`);
    expect(config.errors[0].message).toContain('a FIFO, not a regular file');
    expect(config.gateway.provider).toBe('laya');
  });

  it('reports a config file over the size cap instead of reading all of it', () => {
    const file = path.join(dir, 'config.toml');
    writeFileSync(file, `[gateway]\nprovider = "mock"\n${'# padding\n'.repeat(FILE_CAPS.config / 10 + 1)}`);
    const config = loadFile(file);
    expect(config.errors.map((e) => e.key)).toEqual(['(file)']);
    expect(config.errors[0].message).toContain(file);
    expect(config.errors[0].message).toContain('over the 1 MiB cap');
    expect(config.gateway.provider).toBe('laya');
  });

  it('reads a regular file (control)', () => {
    const file = path.join(dir, 'config.toml');
    writeFileSync(file, '[gateway]\nprovider = "mock"\n');
    expect(loadFile(file)).toMatchObject({ configFile: file, errors: [], gateway: { provider: 'mock' } });
  });
});
