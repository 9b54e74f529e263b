/**
 * What `engine pull` and `engine start` decide from the machine and the engine's self-timing: float32 or int8
 * by the CPU's /proc/cpuinfo, the timing the engine reports (read and said), and the `[gateway] timeout_s` that
 * covers a typical decision, set in the config only where the user left that to the engine, never lowered.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { describeTimeout } from '../../../src/commands/engine/timeout-report';
import { GATEWAY_KEYS } from '../../../src/config/config-keys';
import { ProcessRunner, type RunResult } from '../../../src/local-engines/process/process-runner';
import { EngineConfig } from '../../../src/local-engines/reranker/engine-config.service';
import { TIMEOUT_CAP_S, timeoutFor } from '../../../src/local-engines/reranker/engine-timeout';
import { EngineTimer } from '../../../src/local-engines/reranker/engine-timer.service';
import { describeTiming, type EngineTiming, readEngineTiming } from '../../../src/local-engines/reranker/engine-timing';
import { chooseVariant, type CpuFacts } from '../../../src/local-engines/reranker/model-variant-choice';
import { RerankerHome } from '../../../src/local-engines/reranker/reranker-home';

/** /proc/cpuinfo as Linux writes it, cut to the lines that matter and a few around them. */
const cpuinfo = (label: string, flags: string) =>
  `processor\t: 0\nvendor_id\t: Sample\nmodel name\t: Sample CPU\n${label}\t\t: ${flags}\nbogomips\t: 4000.00\n\nprocessor\t: 1\n${label}\t\t: ${flags}\n`;
const EPYC_GENOA = cpuinfo('flags', 'fpu vme sse sse2 avx avx2 fma avx512f avx512bw avx512_vnni avx512_bf16 vaes');
const ALDER_LAKE = cpuinfo('flags', 'fpu sse sse2 avx avx2 fma avx_vnni sha_ni');
const SKYLAKE_SERVER = cpuinfo('flags', 'fpu sse sse2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl');
const GRAVITON2 = cpuinfo(
  'Features',
  'fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs',
);
const RASPBERRY_PI_4 = cpuinfo('Features', 'fp asimd evtstrm crc32 cpuid');

const linux = (arch: string, text: string | undefined): CpuFacts => ({ platform: 'linux', arch, cpuinfo: text });

describe('engine pull: float32 or int8 by the CPU', () => {
  it.each([
    ['x86-64 with AVX512-VNNI', linux('x64', EPYC_GENOA), 'quantized', /^int8: this CPU has avx512_vnni/],
    ['x86-64 with AVX-VNNI only', linux('x64', ALDER_LAKE), 'quantized', /^int8: this CPU has avx_vnni/],
    ['x86-64 with AVX-512 but no VNNI', linux('x64', SKYLAKE_SERVER), 'float32', /^float32: this CPU has neither/],
    ['arm64 with asimddp', linux('arm64', GRAVITON2), 'quantized', /^int8: this CPU has asimddp/],
    ['arm64 without asimddp', linux('arm64', RASPBERRY_PI_4), 'float32', /^float32: this CPU lacks asimddp/],
    ['Apple silicon', { platform: 'darwin', arch: 'arm64', cpuinfo: undefined }, 'quantized', /^int8: Apple silicon/],
    [
      'an Intel Mac',
      { platform: 'darwin', arch: 'x64', cpuinfo: undefined },
      'float32',
      /unknown \(no \/proc\/cpuinfo to read on darwin x64\)/,
    ],
    ['Windows', { platform: 'win32', arch: 'x64', cpuinfo: undefined }, 'float32', /unknown .*win32 x64/],
    [
      'Linux with /proc/cpuinfo unreadable',
      linux('x64', undefined),
      'float32',
      /unknown \(no \/proc\/cpuinfo to read on this machine\)/,
    ],
    [
      'a cpuinfo without a flags line',
      linux('x64', 'processor\t: 0\n'),
      'float32',
      /unknown \(\/proc\/cpuinfo lists no flags\)/,
    ],
  ] as const)('%s', (_name, cpu, variant, why) => {
    const choice = chooseVariant({}, cpu);
    expect(choice).toMatchObject({ variant, forced: false });
    expect(choice.why).toMatch(why);
  });

  it('reads whole flags, not parts of longer ones', () => {
    const lookalike = cpuinfo('flags', 'avx2 avx512_vnni_x xavx_vnni');
    expect(chooseVariant({}, linux('x64', lookalike)).variant).toBe('float32');
  });

  it('--quantized and --float32 force their file whatever the CPU', () => {
    expect(chooseVariant({ quantized: true }, linux('arm64', RASPBERRY_PI_4))).toEqual({
      variant: 'quantized',
      why: 'int8, as --quantized asks',
      forced: true,
    });
    expect(chooseVariant({ float32: true }, linux('x64', EPYC_GENOA))).toEqual({
      variant: 'float32',
      why: 'float32, as --float32 asks',
      forced: true,
    });
  });
});

/** A timing as the engine writes it (engines/reranker/lib/self-timing.js). */
function timing(predicted: [number, number, number], advice: EngineTiming['advice'] = []): EngineTiming {
  return {
    per_candidate_ms: predicted[1] / 20,
    predicted_ms: { 5: predicted[0], 20: predicted[1], 90: predicted[2] },
    runs: 3,
    how: 'predictions from a measured cost per candidate',
    measured_at: '2026-12-07T10:00:00.000Z',
    system1_speed_ms: 500,
    slow: predicted[1] > 500,
    advice,
  };
}
const SLOW = timing(
  [435, 1730, 7760],
  [{ what: 'the int8 export', how: 'system1 engine pull reranker --quantized', cost: '522 ms at 20 candidates' }],
);
const FAST = timing([1.4, 5.5, 24.6]);

describe("the engine's timing, read and said", () => {
  it('reads what the engine writes, and nothing malformed', () => {
    expect(readEngineTiming(JSON.parse(JSON.stringify(SLOW)))).toEqual(SLOW);
    for (const broken of [
      undefined,
      null,
      'fast',
      { ...SLOW, predicted_ms: { 5: 1, 20: 2 } },
      { ...SLOW, predicted_ms: { 5: 1, 20: -2, 90: 3 } },
      { ...SLOW, per_candidate_ms: null },
      { ...SLOW, slow: 'yes' },
      { ...SLOW, advice: [{ what: 'x' }] },
    ])
      expect(readEngineTiming(broken)).toBeUndefined();
  });

  it('says the predictions; when slow, the ways to go faster with their costs', () => {
    expect(describeTiming(FAST)).toEqual([
      'On this machine a decision of 5 candidates takes ~1.4 ms, 20 ~5.5 ms, 90 ~24.6 ms ' +
        '(the engine timed itself on this model: predictions from a measured cost per candidate).',
    ]);
    expect(describeTiming(SLOW)).toEqual([
      expect.stringContaining('5 candidates takes ~435 ms, 20 ~1,730 ms, 90 ~7,760 ms'),
      'That is over 500 ms for 20 candidates, far from System-1 speed. Faster ways, with what each costs:',
      '  - the int8 export: system1 engine pull reranker --quantized. 522 ms at 20 candidates.',
    ]);
  });
});

class ScriptedRunner extends ProcessRunner {
  readonly runs: { args: readonly string[]; cwd: string; env: NodeJS.ProcessEnv }[] = [];
  constructor(private readonly result: Partial<RunResult>) {
    super();
  }
  override run(_command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.runs.push({ args, cwd: options.cwd, env: options.env });
    return Promise.resolve({ code: 0, stdout: '', stderr: '', missing: false, ...this.result });
  }
}

describe("engine pull runs the installed engine's time.js", () => {
  const home = new RerankerHome('/install/engines/reranker');

  it('from the engine folder, with the environment given, and reads its --json', async () => {
    const runner = new ScriptedRunner({ stdout: `${JSON.stringify({ model: 'm', device: 'cpu', ...SLOW })}\n` });
    const outcome = await new EngineTimer(runner).time(home, '/models/m', { PATH: '/bin' });
    expect(outcome).toEqual({ kind: 'timed', timing: expect.objectContaining(SLOW) });
    expect(runner.runs).toEqual([
      { args: [home.timer, '--model', '/models/m', '--json'], cwd: home.dir, env: { PATH: '/bin' } },
    ]);
  });

  it('reports a failed timing with its last line, and output that is not a timing, without throwing', async () => {
    const failed = new ScriptedRunner({ code: 1, stderr: 'loading\ntime: the model folder /x does not exist\n' });
    expect(await new EngineTimer(failed).time(home, '/x', {})).toEqual({
      kind: 'failed',
      why: `${home.timer} exited 1: time: the model folder /x does not exist`,
    });
    expect(await new EngineTimer(new ScriptedRunner({ stdout: 'hello' })).time(home, '/x', {})).toMatchObject({
      kind: 'failed',
      why: expect.stringContaining('printed no JSON document'),
    });
    expect(await new EngineTimer(new ScriptedRunner({ stdout: '{"runs":1}' })).time(home, '/x', {})).toMatchObject({
      kind: 'failed',
    });
  });
});

describe('the timeout a typical decision needs', () => {
  it("is twice the 20-candidate prediction in whole seconds, at least 1 s, capped at the key's maximum", () => {
    expect(timeoutFor(1730, 0.5)).toEqual({ needed_s: 4, value_s: 4, raise: true, capped: false });
    expect(timeoutFor(5.5, 0.5)).toEqual({ needed_s: 1, value_s: 1, raise: true, capped: false });
    expect(timeoutFor(200_000, 5)).toEqual({ needed_s: 400, value_s: 300, raise: true, capped: true });
  });

  it('never goes below the value in force', () => {
    expect(timeoutFor(1730, 5)).toEqual({ needed_s: 4, value_s: 5, raise: false, capped: false });
    expect(timeoutFor(1730, 4)).toMatchObject({ value_s: 4, raise: false });
    expect(timeoutFor(200_000, 300)).toMatchObject({ value_s: 300, raise: false, capped: true });
  });

  it("caps at exactly [gateway] timeout_s's maximum", () => {
    expect(GATEWAY_KEYS.timeout_s.type.fromFile(TIMEOUT_CAP_S)).toBe(TIMEOUT_CAP_S);
    expect(() => GATEWAY_KEYS.timeout_s.type.fromFile(TIMEOUT_CAP_S + 0.001)).toThrow();
  });
});

describe('engine start sets [gateway] timeout_s', () => {
  const ENDPOINT = 'http://127.0.0.1:8790';
  let scratch: string;
  beforeEach(() => (scratch = mkdtempSync(path.join(tmpdir(), 'system1-timeout-'))));
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));
  const configFile = (text: string) => {
    const file = path.join(scratch, 'config.toml');
    writeFileSync(file, text);
    return file;
  };
  const env = (file: string, extra: NodeJS.ProcessEnv = {}) => ({ SYSTEM1_CONFIG: file, HOME: scratch, ...extra });
  /** `engine start`'s two steps: point the config at the reranker, then cover the predicted decision. */
  function start(file: string, predicted20: number, extra: NodeJS.ProcessEnv = {}) {
    const config = new EngineConfig();
    return config.coverTimeout(predicted20, config.pointAt(ENDPOINT, env(file, extra)), env(file, extra));
  }

  it('raises a lower value in a config it points at the reranker, keeping the rest, and says why', () => {
    const file = configFile('# mine\n[gateway]\nprovider = "mock"\ntimeout_s = 0.5\n');
    const outcome = start(file, 1730);
    expect(outcome).toMatchObject({ kind: 'raised', file, from_s: 0.5, plan: { value_s: 4 } });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# mine');
    expect(parse(text)).toMatchObject({ gateway: { provider: 'systemone', timeout_s: 4 } });
    expect(describeTimeout(outcome, SLOW)).toEqual([
      `Set [gateway] timeout_s = 4 in ${file} (it was 0.5 s): a decision of 20 candidates is predicted at ~1,730 ms; ` +
        '2x that, rounded up, is 4 s.',
      'A decision of 90 candidates (~7,760 ms) would still time out at 4 s and fall back: give such decisions fewer ' +
        'candidates, or take a faster way (above).',
    ]);
  });

  it('raises the default (no timeout_s in the file) when a decision needs more, and adds the key', () => {
    const file = configFile('[gateway]\n');
    expect(start(file, 4000)).toMatchObject({ kind: 'raised', from_s: GATEWAY_KEYS.timeout_s.default });
    expect(parse(readFileSync(file, 'utf8'))).toMatchObject({ gateway: { timeout_s: 8 } });
  });

  it('never lowers a larger value, nor writes the default in, and says it is enough', () => {
    const file = configFile('[gateway]\ntimeout_s = 30\n');
    const outcome = start(file, 1730);
    expect(outcome).toMatchObject({ kind: 'enough', current_s: 30, isDefault: false });
    expect(parse(readFileSync(file, 'utf8'))).toMatchObject({ gateway: { timeout_s: 30 } });
    expect(describeTimeout(outcome, SLOW)[0]).toBe(
      `[gateway] timeout_s is 30 s in ${file}, enough already: a decision of 20 candidates is predicted at ~1,730 ms; ` +
        '2x that, rounded up, is 4 s. Left as it is.',
    );
    const plain = configFile('');
    expect(start(plain, 5.5)).toMatchObject({ kind: 'enough', current_s: 5, isDefault: true });
    expect(parse(readFileSync(plain, 'utf8'))).not.toHaveProperty('gateway.timeout_s');
  });

  it('leaves a config that chose another provider as it is, and prints the line to add', () => {
    const text = '[gateway]\nprovider = "laya"\n';
    const file = configFile(text);
    const outcome = start(file, 4000);
    expect(outcome).toMatchObject({
      kind: 'by-hand',
      line: 'timeout_s = 8',
      why: 'it uses the provider "laya", your choice',
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(describeTimeout(outcome, SLOW).slice(0, 2)).toEqual([
      `[gateway] timeout_s in ${file} was left as it is (it uses the provider "laya", your choice); a decision of 20 ` +
        'candidates is predicted at ~1,730 ms; 2x that, rounded up, is 8 s. To cover it, set in its [gateway] table:',
      '  timeout_s = 8',
    ]);
  });

  it('leaves a file it cannot read, or whose timeout_s is not valid, saying why', () => {
    const broken = configFile('[gateway\n');
    expect(start(broken, 1730)).toMatchObject({
      kind: 'unreadable',
      why: expect.stringMatching(/^it could not be read as TOML/),
    });
    const invalid = configFile('[gateway]\ntimeout_s = "soon"\n');
    const outcome = start(invalid, 1730);
    expect(outcome).toMatchObject({ kind: 'unreadable', why: 'its timeout_s "soon" is not a valid value' });
    expect(describeTimeout(outcome, SLOW)).toEqual([
      `[gateway] timeout_s in ${invalid} was left as it is (its timeout_s "soon" is not a valid value).`,
    ]);
  });

  it('notes a SYSTEM1_TIMEOUT_S that overrides the file', () => {
    const file = configFile('');
    const outcome = start(file, 1730, { SYSTEM1_TIMEOUT_S: '2' });
    expect(outcome.note).toBe("SYSTEM1_TIMEOUT_S=2 in this environment overrides the file's timeout_s");
    expect(describeTimeout(outcome, SLOW).at(-1)).toBe(
      "Note: SYSTEM1_TIMEOUT_S=2 in this environment overrides the file's timeout_s.",
    );
  });
});
