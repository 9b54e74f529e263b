/**
 * The reranker's life in the install dir without a real server: its package copied and installed once, the
 * model `engine start` picks, the pid check that keeps `engine stop` from killing another program, and the
 * config it changes only when the user had made no choice.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { byteSize } from '../../../src/commands/option-parsers';
import { MANIFEST_FILE, type PullManifest } from '../../../src/local-engines/hub/pull-manifest';
import {
  ProcessRunner,
  type ProcessRunOptions,
  type RunResult,
} from '../../../src/local-engines/process/process-runner';
import { ProcessTable } from '../../../src/local-engines/process/process-table';
import { EngineConfig } from '../../../src/local-engines/reranker/engine-config.service';
import { EnginePackage } from '../../../src/local-engines/reranker/engine-package.service';
import { latestPulledModel } from '../../../src/local-engines/reranker/pulled-models';
import { RerankerHealth, type RerankerHealthReport } from '../../../src/local-engines/reranker/reranker-health';
import { RerankerHome } from '../../../src/local-engines/reranker/reranker-home';
import { RerankerProcesses } from '../../../src/local-engines/reranker/reranker-process.service';

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'system1-reranker-unit-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Records each run and answers with `reply` (npm "installs" by creating the packages' folders). */
class RecordingRunner extends ProcessRunner {
  readonly runs: { command: string; args: readonly string[]; cwd: string }[] = [];
  reply: (options: ProcessRunOptions) => Partial<RunResult> = ({ cwd }) => {
    for (const name of ['onnxruntime-node', '@huggingface/tokenizers'])
      mkdirSync(path.join(cwd, 'node_modules', name), { recursive: true });
    return { stderr: 'npm warn Unknown project config "onnxruntime-node-install".\n' };
  };

  override async run(command: string, args: readonly string[], options: ProcessRunOptions): Promise<RunResult> {
    this.runs.push({ command, args, cwd: options.cwd });
    return { code: 0, stdout: '', stderr: '', missing: false, ...this.reply(options) };
  }
}

describe('the engine package in the install dir', () => {
  function appEngine(): string {
    const from = path.join(scratch, 'app', 'engines', 'reranker');
    write(
      path.join(from, 'package.json'),
      JSON.stringify({ name: 'system1-reranker', files: ['.npmrc', 'start.js', 'serve.js', 'lib'] }),
    );
    write(path.join(from, 'package-lock.json'), '{"lockfileVersion":3}');
    write(path.join(from, '.npmrc'), 'onnxruntime-node-install=skip\n');
    write(path.join(from, 'start.js'), '// launcher');
    write(path.join(from, 'serve.js'), '// server');
    write(path.join(from, 'lib', 'reranker.js'), '// v1');
    // A clone's engine folder has these too: none of them is the package's
    write(path.join(from, 'node_modules', 'onnxruntime-node', 'index.js'), '');
    write(path.join(from, 'model', 'model.onnx'), 'a model tried in place');
    write(path.join(from, 'reranker.log'), 'a log');
    return from;
  }

  it('copies the listed files, installs the packages once, and again only when the lockfile changes', async () => {
    const from = appEngine();
    const home = new RerankerHome(path.join(scratch, 'install', 'engines', 'reranker'));
    const runner = new RecordingRunner();
    const lines: string[] = [];
    await new EnginePackage(runner).prepare(home, from, (line) => lines.push(line), {});
    for (const file of [
      'package.json',
      'package-lock.json',
      '.npmrc',
      'start.js',
      'serve.js',
      path.join('lib', 'reranker.js'),
    ]) {
      expect(readFileSync(path.join(home.dir, file), 'utf8')).toBe(readFileSync(path.join(from, file), 'utf8'));
    }
    for (const absent of [path.join('node_modules', 'onnxruntime-node', 'index.js'), 'model', 'reranker.log'])
      expect(existsSync(path.join(home.dir, absent))).toBe(false);
    expect(runner.runs).toEqual([
      { command: 'npm', args: expect.arrayContaining(['ci', '--omit=dev', '--no-audit', '--no-fund']), cwd: home.dir },
    ]);
    expect(home.installed).toBe(true);
    expect(lines[0]).toBe(`Copied 6 of the reranker's files into ${home.dir}.`);
    // a good install shows none of npm's own warnings: they ask nothing of the user
    expect(lines.join('\n')).not.toContain('npm warn');

    lines.length = 0;
    await new EnginePackage(runner).prepare(home, from, (line) => lines.push(line), {});
    expect(runner.runs).toHaveLength(1);
    expect(lines).toEqual([]);

    write(path.join(from, 'lib', 'reranker.js'), '// v2, from an upgrade');
    await new EnginePackage(runner).prepare(home, from, (line) => lines.push(line), {});
    expect(readFileSync(path.join(home.dir, 'lib', 'reranker.js'), 'utf8')).toBe('// v2, from an upgrade');
    expect(lines).toEqual([`Copied 1 of the reranker's files into ${home.dir}.`]);
    expect(runner.runs).toHaveLength(1);

    write(path.join(from, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
    await new EnginePackage(runner).prepare(home, from, () => undefined, {});
    expect(runner.runs).toHaveLength(2);
  });

  it('says npm failed and installs again next time', async () => {
    const from = appEngine();
    const home = new RerankerHome(path.join(scratch, 'install', 'engines', 'reranker'));
    const runner = new RecordingRunner();
    runner.reply = () => ({
      code: 1,
      stderr: 'npm warn Unknown project config "onnxruntime-node-install"\nnpm error network ENOTFOUND\n',
    });
    const lines: string[] = [];
    await expect(new EnginePackage(runner).prepare(home, from, (line) => lines.push(line), {})).rejects.toThrow(
      /npm ci --omit=dev .* failed \(exit 1\); its output is above\. The model was not downloaded/,
    );
    expect(lines).toContain('npm error network ENOTFOUND');
    runner.reply = new RecordingRunner().reply;
    await new EnginePackage(runner).prepare(home, from, () => undefined, {});
    expect(runner.runs).toHaveLength(2);
  });
});

describe('the model engine start serves', () => {
  function pulled(folder: string, pulledAt: string): void {
    const manifest: PullManifest = {
      repo: path.basename(folder),
      revision: 'main',
      endpoint: 'http://hub',
      variant: 'float32',
      files: [],
      pulled_at: pulledAt,
    };
    write(path.join(folder, MANIFEST_FILE), JSON.stringify(manifest));
  }

  it('is the most recently pulled complete model: never a staging folder nor a folder without a manifest', () => {
    const models = path.join(scratch, 'models');
    pulled(path.join(models, 'org', 'older'), '2026-01-01T00:00:00.000Z');
    pulled(path.join(models, 'bare-name'), '2026-02-01T00:00:00.000Z');
    pulled(path.join(models, 'org', 'newest.partial'), '2026-03-01T00:00:00.000Z');
    write(path.join(models, 'org', 'no-manifest', 'config.json'), '{}');
    expect(latestPulledModel(models)?.folder).toBe(path.join(models, 'bare-name'));
    pulled(path.join(models, 'org', 'newer'), '2026-02-02T00:00:00.000Z');
    expect(latestPulledModel(models)?.folder).toBe(path.join(models, 'org', 'newer'));
    expect(latestPulledModel(path.join(scratch, 'none'))).toBeUndefined();
  });
});

/** A process table with the processes a test says are there. */
class FakeTable extends ProcessTable {
  readonly signals: [number, NodeJS.Signals][] = [];
  constructor(readonly processes: Map<number, string>) {
    super();
  }
  override isRunning(pid: number): boolean {
    return this.processes.has(pid);
  }
  override commandLine(pid: number): string | undefined {
    return this.processes.get(pid);
  }
  override signal(pid: number, signal: NodeJS.Signals): void {
    this.signals.push([pid, signal]);
    if (signal === 'SIGTERM') this.processes.delete(pid);
  }
}

class FakeHealth extends RerankerHealth {
  constructor(private readonly report: RerankerHealthReport) {
    super();
  }
  override async check(): Promise<RerankerHealthReport> {
    return this.report;
  }
}

describe('starting and stopping', () => {
  const home = () => new RerankerHome(path.join(scratch, 'engines', 'reranker'));
  const record = (pid: number) =>
    write(home().pidFile, JSON.stringify({ pid, port: 8790, model: '/m', started_at: 'now' }));
  const ours = (h: RerankerHome) => `${process.execPath} ${h.server} --model /m --port 8790 --device auto`;

  it('stops the server it started: SIGTERM to the pid in the pid file, which then goes', async () => {
    const h = home();
    record(4242);
    const table = new FakeTable(new Map([[4242, ours(h)]]));
    expect(
      await new RerankerProcesses(new RecordingRunner(), table, new FakeHealth({ reranker: true })).stop(h),
    ).toEqual({ kind: 'stopped', pid: 4242, forced: false });
    expect(table.signals).toEqual([[4242, 'SIGTERM']]);
    expect(existsSync(h.pidFile)).toBe(false);
  });

  it('never signals a pid that now runs another program, and drops the stale pid file', async () => {
    const h = home();
    record(4242);
    const table = new FakeTable(new Map([[4242, '/usr/bin/vim notes.txt']]));
    expect(
      await new RerankerProcesses(new RecordingRunner(), table, new FakeHealth({ reranker: true })).stop(h),
    ).toEqual({ kind: 'not-ours', pid: 4242 });
    expect(table.signals).toEqual([]);
    expect(existsSync(h.pidFile)).toBe(false);
  });

  it('says so when nothing it started runs', async () => {
    const processes = new RerankerProcesses(
      new RecordingRunner(),
      new FakeTable(new Map()),
      new FakeHealth({ reranker: true }),
    );
    expect(await processes.stop(home())).toMatchObject({
      kind: 'not-running',
      why: expect.stringContaining('no pid file'),
    });
    record(4242);
    expect(await processes.stop(home())).toMatchObject({
      kind: 'not-running',
      why: 'the server started as pid 4242 has already exited',
    });
    expect(existsSync(home().pidFile)).toBe(false);
  });

  it('keeps the pid the launcher printed, and refuses a port another program holds', async () => {
    const h = home();
    mkdirSync(h.dir, { recursive: true });
    const runner = new RecordingRunner();
    runner.reply = () => ({ stdout: `reranker serving m on http://127.0.0.1:8790 (pid 5150); log: ${h.log}\n` });
    const started = await new RerankerProcesses(
      runner,
      new FakeTable(new Map()),
      new FakeHealth({ reranker: true }),
    ).start(h, { model: '/m', port: 8790, device: 'cpu', env: {} });
    expect(started).toEqual({ kind: 'started', pid: 5150, port: 8790 });
    expect(JSON.parse(readFileSync(h.pidFile, 'utf8'))).toMatchObject({ pid: 5150, port: 8790, model: '/m' });
    expect(runner.runs[0]).toEqual({
      command: process.execPath,
      args: [h.launcher, '--model', '/m', '--port', '8790', '--device', 'cpu'],
      cwd: h.dir,
    });

    runner.reply = () => ({ stdout: 'Port 8790 on 127.0.0.1 is already in use: leaving the running engine alone.\n' });
    const processes = new RerankerProcesses(runner, new FakeTable(new Map()), new FakeHealth({ reranker: false }));
    await expect(processes.start(h, { model: '/m', port: 8790, device: 'cpu', env: {} })).rejects.toThrow(
      'port 8790 on 127.0.0.1 is taken by another program: pass --port N',
    );
  });
});

describe('pointing the config at the reranker', () => {
  const ENDPOINT = 'http://127.0.0.1:8790';
  const env = (file: string, extra: NodeJS.ProcessEnv = {}) => ({ SYSTEM1_CONFIG: file, HOME: scratch, ...extra });

  it('sets the provider and endpoint in a config that names no provider, keeping its comments', () => {
    const file = write(path.join(scratch, 'config.toml'), '# mine\n[gateway]\n# provider = "laya"\ntimeout_s = 2\n');
    expect(new EngineConfig().pointAt(ENDPOINT, env(file))).toEqual({ kind: 'set', file, before: undefined });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# mine');
    expect(parse(text)).toEqual({
      gateway: { provider: 'systemone', timeout_s: 2 },
      providers: { systemone: { endpoint: ENDPOINT } },
    });
    expect(new EngineConfig().pointAt(ENDPOINT, env(file))).toEqual({ kind: 'already', file });
  });

  it('replaces the mock, and creates a missing config', () => {
    const file = write(path.join(scratch, 'config.toml'), '[gateway]\nprovider = "mock"\n');
    expect(new EngineConfig().pointAt(ENDPOINT, env(file))).toMatchObject({ kind: 'set', before: 'mock' });
    const missing = path.join(scratch, 'new', 'config.toml');
    expect(new EngineConfig().pointAt(ENDPOINT, env(missing))).toMatchObject({ kind: 'set', before: undefined });
    expect(parse(readFileSync(missing, 'utf8'))).toMatchObject({ gateway: { provider: 'systemone' } });
  });

  it('leaves a provider the user chose, and a file it cannot read, and prints the lines instead', () => {
    const text = '[gateway]\nprovider = "laya"\n';
    const file = write(path.join(scratch, 'config.toml'), text);
    const lines = ['[gateway]', 'provider = "systemone"', '[providers.systemone]', `endpoint = "${ENDPOINT}"`];
    expect(new EngineConfig().pointAt(ENDPOINT, env(file))).toEqual({
      kind: 'by-hand',
      file,
      why: 'it uses the provider "laya", your choice',
      lines,
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
    const broken = write(path.join(scratch, 'broken.toml'), '[gateway\nprovider = ');
    expect(new EngineConfig().pointAt(ENDPOINT, env(broken))).toMatchObject({
      kind: 'by-hand',
      why: expect.stringMatching(/^it could not be read as TOML/),
    });
    expect(readFileSync(broken, 'utf8')).toBe('[gateway\nprovider = ');
  });

  it('notes a SYSTEM1_PROVIDER that overrides the file', () => {
    const file = write(path.join(scratch, 'config.toml'), '');
    expect(new EngineConfig().pointAt(ENDPOINT, env(file, { SYSTEM1_PROVIDER: 'laya' }))).toMatchObject({
      kind: 'set',
      note: "SYSTEM1_PROVIDER=laya in this environment overrides the file's provider",
    });
  });
});

describe('--max-file-size', () => {
  it.each([
    ['2GiB', 2 * 1024 ** 3],
    ['500MB', 500e6],
    ['1.5 gib', 1.5 * 1024 ** 3],
    ['1024', 1024],
  ])('reads %s', (text, bytes) => {
    expect(byteSize(text)).toBe(bytes);
  });

  it.each(['0', '-1GiB', '2 lightyears', '', 'GiB'])('refuses %j', (text) => {
    expect(() => byteSize(text)).toThrow(/must be a size such as 2GiB/);
  });
});
