/**
 * Config problems never stop the server: health reports them (status "down", config_errors naming file and
 * key), decide answers config_error, and the next call is still answered. And the environment overrides the file.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Env, type GatewaySession, type Json, requireBuild, Resources } from './helpers/gateway';

beforeAll(requireBuild);
const resources = Resources.perTest();

const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };
const MOCK = '[gateway]\nprovider = "mock"\n';

interface BrokenCase {
  name: string;
  /** The TOML text (written to a file named by SYSTEM1_CONFIG), or null for none. */
  toml: string | null;
  env?: Env;
  /** The expected error's key and whether its file is the config file or "environment". */
  key: string;
  file: 'config' | 'environment';
  /** Words the message must contain besides the file and key. */
  mentions?: string[];
}

const CASES: BrokenCase[] = [
  {
    name: 'a TOML syntax error',
    toml: `${MOCK}timeout_s = = 3\n`,
    key: '(syntax)',
    file: 'config',
    mentions: ['line'],
  },
  { name: 'an unknown key in [gateway]', toml: `${MOCK}colour = "blue"\n`, key: 'gateway.colour', file: 'config' },
  { name: 'an unknown key in [routing]', toml: `${MOCK}[routing]\nbogus = 1\n`, key: 'routing.bogus', file: 'config' },
  { name: 'an unknown key in [skills]', toml: `${MOCK}[skills]\nbogus = true\n`, key: 'skills.bogus', file: 'config' },
  { name: 'timeout_s = 0', toml: `${MOCK}timeout_s = 0\n`, key: 'gateway.timeout_s', file: 'config' },
  {
    name: 'timeout_s = 301',
    toml: `${MOCK}timeout_s = 301\n`,
    key: 'gateway.timeout_s',
    file: 'config',
    mentions: ['301'],
  },
  {
    name: 'min_confidence = 1.5',
    toml: `${MOCK}min_confidence = 1.5\n`,
    key: 'gateway.min_confidence',
    file: 'config',
    mentions: ['1.5'],
  },
  {
    name: 'an unknown provider name',
    toml: '[gateway]\nprovider = "nosuch"\n',
    key: 'gateway.provider',
    file: 'config',
    mentions: ['nosuch'],
  },
  {
    name: 'a provider setting out of range ([providers.mock] confidence = 2)',
    toml: `${MOCK}[providers.mock]\nconfidence = 2\n`,
    key: 'providers.mock.confidence',
    file: 'config',
  },
  {
    name: 'an unknown key in [providers.mock]',
    toml: `${MOCK}[providers.mock]\ncolour = "red"\n`,
    key: 'providers.mock.colour',
    file: 'config',
  },
  {
    name: 'SYSTEM1_CONFIG naming a missing file',
    toml: null,
    env: { SYSTEM1_PROVIDER: 'mock' },
    key: '(file)',
    file: 'config',
  },
  {
    name: 'an invalid environment value (SYSTEM1_TIMEOUT_S=abc)',
    toml: null,
    env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_TIMEOUT_S: 'abc' },
    key: 'SYSTEM1_TIMEOUT_S',
    file: 'environment',
    mentions: ['SYSTEM1_TIMEOUT_S'],
  },
  {
    name: 'an invalid provider variable (SYSTEM1_MOCK_CONFIDENCE=abc)',
    toml: null,
    env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_CONFIDENCE: 'abc' },
    key: 'SYSTEM1_MOCK_CONFIDENCE',
    file: 'environment',
  },
  {
    name: 'an unknown provider named by SYSTEM1_PROVIDER',
    toml: null,
    env: { SYSTEM1_PROVIDER: 'nosuch' },
    key: 'SYSTEM1_PROVIDER',
    file: 'environment',
    mentions: ['nosuch'],
  },
];

async function startBroken(c: BrokenCase): Promise<{ gateway: GatewaySession; configPath: string | null }> {
  const sandbox = resources.sandbox();
  const env: Env = { ...(c.env ?? {}) };
  let configPath: string | null = null;
  if (c.toml !== null) configPath = env.SYSTEM1_CONFIG = sandbox.writeConfig(c.toml);
  else if (c.file === 'config') configPath = env.SYSTEM1_CONFIG = path.join(sandbox.dir, 'does-not-exist.toml');
  return { gateway: await resources.server({ sandbox, env }), configPath };
}

function expectReported(errors: Json[], c: BrokenCase, configPath: string | null): Json {
  const file = c.file === 'environment' ? 'environment' : configPath;
  const match = errors.find((e) => e.key === c.key);
  expect(match).toBeDefined();
  expect(match).toEqual({ file, key: c.key, message: expect.any(String) });
  // The message names where the problem is: the file (or the variable) and the key.
  if (c.file === 'config') expect(match!.message).toContain(configPath);
  if (!c.key.startsWith('(')) expect(match!.message).toContain(c.key);
  for (const words of c.mentions ?? []) expect(match!.message).toContain(words);
  return match!;
}

describe('config errors', () => {
  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: health down, decide config_error, server keeps answering',
    async (_n, c) => {
      const { gateway, configPath } = await startBroken(c);

      const health = await gateway.health();
      expect(health.status).toBe('down');
      expect(health.config_errors.length).toBeGreaterThan(0);
      const reported = expectReported(health.config_errors, c, configPath);
      if (c.file === 'config') expect(health.config_file).toBe(configPath);

      const { body, isError } = await gateway.decide({ ...ASK, request_id: 'cfg-1' });
      expect(isError).toBe(true);
      expect(body).toMatchObject({
        request_id: 'cfg-1',
        status: 'error',
        decision: null,
        attempts: [],
        error: { code: 'config_error', message: expect.stringContaining(reported.message) },
      });

      // Still serving: capabilities reports the same problems, and health answers again.
      const capabilities = await gateway.capabilities();
      expectReported(capabilities.config_errors, c, configPath);
      expect((await gateway.health()).status).toBe('down');
    },
  );

  it('never shows a secret written in the file: not in any response, not in stderr', async () => {
    const secret = 'sk-test-SECRET123';
    const sandbox = resources.sandbox();
    const configPath = sandbox.writeConfig(`${MOCK}[providers.mock]\napi_key = "${secret}"\n`);
    const gateway = await resources.server({
      sandbox,
      env: { SYSTEM1_CONFIG: configPath, SYSTEM1_LOG_LEVEL: 'DEBUG' },
    });

    const health = await gateway.call('system1_health');
    expect(health.body.status).toBe('down');
    const reported = expectReported(
      health.body.config_errors,
      { name: '', toml: '', key: 'providers.mock.api_key', file: 'config' },
      configPath,
    );
    expect(reported.message).toMatch(/secret/i);
    const decide = await gateway.decide({ ...ASK, request_id: 'secret-1' });
    expect(decide.body.error.code).toBe('config_error');
    const capabilities = await gateway.call('system1_capabilities');

    for (const reply of [health, decide, capabilities]) {
      expect(reply.text).not.toContain('SECRET123');
      expect(JSON.stringify(reply.body)).not.toContain('SECRET123');
    }
    await gateway.close(); // flush every log line
    expect(gateway.stderr()).toContain('secret-1'); // the log was captured at all
    expect(gateway.stderr()).not.toContain('SECRET123');
  });
});

describe('the environment overrides the file', () => {
  it('reads the file (control: [providers.mock] confidence = 0.7)', async () => {
    const gateway = await resources.server({ config: `${MOCK}[providers.mock]\nconfidence = 0.7\n` });
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'decided', confidence: 0.7 });
  });

  it("SYSTEM1_MOCK_CONFIDENCE=0.95 overrides the file's 0.7", async () => {
    const gateway = await resources.server({
      config: `${MOCK}[providers.mock]\nconfidence = 0.7\n`,
      env: { SYSTEM1_MOCK_CONFIDENCE: '0.95' },
    });
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'decided', confidence: 0.95, provider: 'mock' });
  });

  it("SYSTEM1_PROVIDER overrides the file's provider", async () => {
    const toml =
      '[gateway]\nprovider = "broken"\n\n[providers.broken]\ntype = "mock"\nfail = "engine down"\n\n[providers.other]\ntype = "mock"\nconfidence = 0.8\n';
    const gateway = await resources.server({ config: toml, env: { SYSTEM1_PROVIDER: 'other' } });
    expect((await gateway.capabilities()).provider_chain).toEqual([{ name: 'other', role: 'primary' }]);
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'decided', provider: 'other', confidence: 0.8 });
    expect(body.attempts).toEqual([{ provider: 'other', outcome: 'ok', latency_ms: expect.any(Number), detail: null }]);
  });

  it("SYSTEM1_FALLBACK is a comma list that replaces the file's fallback", async () => {
    const toml =
      '[gateway]\nprovider = "broken"\nfallback = ["other"]\n\n[providers.broken]\ntype = "mock"\nfail = "engine down"\n\n' +
      '[providers.broken2]\ntype = "mock"\nfail = "also down"\n\n[providers.other]\ntype = "mock"\n';
    const gateway = await resources.server({ config: toml, env: { SYSTEM1_FALLBACK: 'broken2, mock' } });
    expect((await gateway.capabilities()).provider_chain).toEqual([
      { name: 'broken', role: 'primary' },
      { name: 'broken2', role: 'fallback' },
      { name: 'mock', role: 'fallback' },
    ]);
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'decided', provider: 'mock' });
    expect(body.attempts.map((a: Json) => [a.provider, a.outcome])).toEqual([
      ['broken', 'error'],
      ['broken2', 'error'],
      ['mock', 'ok'],
    ]);
  });

  it('SYSTEM1_TIMEOUT_S and SYSTEM1_MIN_CONFIDENCE override the file (seen in system1_capabilities)', async () => {
    const gateway = await resources.server({
      config: `${MOCK}timeout_s = 5\nmin_confidence = 0.7\n`,
      env: { SYSTEM1_TIMEOUT_S: '2.5', SYSTEM1_MIN_CONFIDENCE: '0.3' },
    });
    const capabilities = await gateway.capabilities();
    expect(capabilities.timeout_s).toBe(2.5);
    expect(capabilities.min_confidence).toBe(0.3);
    expect(capabilities.config_errors).toEqual([]);
  });

  it('SYSTEM1_TIMEOUT_S really bounds each attempt', async () => {
    // Both the file's timeout and the mock's delay are the longest allowed (300 s): an answer within the
    // test's time can only come from the variable's 0.3 s, which the attempt's detail names.
    const gateway = await resources.server({
      config: `${MOCK}timeout_s = 300\n`,
      env: { SYSTEM1_TIMEOUT_S: '0.3', SYSTEM1_MOCK_DELAY_S: '300' },
    });
    const { body } = await gateway.decide(ASK);
    expect(body).toMatchObject({ status: 'error', error: { code: 'provider_timeout' } });
    expect(body.attempts).toEqual([
      { provider: 'mock', outcome: 'timeout', latency_ms: expect.any(Number), detail: 'no answer within 0.3 s' },
    ]);
  });
});

describe('where the config file is found', () => {
  it('reads $XDG_CONFIG_HOME/system1/config.toml without SYSTEM1_CONFIG and reports it as config_file', async () => {
    const sandbox = resources.sandbox();
    const file = path.join(sandbox.xdg, 'system1', 'config.toml');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${MOCK}[providers.mock]\nconfidence = 0.75\n`);
    const gateway = await resources.server({ sandbox });
    const health = await gateway.health();
    expect(health).toMatchObject({ status: 'ok', config_file: file, config_errors: [] });
    expect((await gateway.decide(ASK)).body.confidence).toBe(0.75);
  });
});

describe('logging settings', () => {
  it('SYSTEM1_LOG_FILE receives the log lines too, and SYSTEM1_LOG_LEVEL=WARNING drops INFO lines', async () => {
    const sandbox = resources.sandbox();
    const logFile = path.join(sandbox.dir, 'logs', 'gateway.log');
    const gateway = await resources.server({
      sandbox,
      env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_LOG_FILE: logFile, SYSTEM1_LOG_LEVEL: 'WARNING' },
    });
    expect((await gateway.decide({ ...ASK, request_id: 'log-ok-1' })).body.status).toBe('decided');
    expect((await gateway.decide({ question: '', request_id: 'log-bad-1' })).body.status).toBe('error');
    await gateway.close();
    const written = readFileSync(logFile, 'utf8');
    for (const text of [written, gateway.stderr()]) {
      expect(text).toContain('log-bad-1'); // a WARN line
      expect(text).not.toContain('log-ok-1'); // only INFO lines mention a decided request
    }
  });
});
