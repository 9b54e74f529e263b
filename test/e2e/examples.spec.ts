/**
 * The programs in examples/ run as a user runs them (`node examples/<name>.js`, requiring the built
 * package) against a fake laya-serve on loopback.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { type CliResult, type Env, requireBuild, ROOT, Sandbox } from './helpers/gateway';

function runExample(name: string, env: Env, args: string[] = []): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'examples', name), ...args],
      { env, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
        });
      },
    );
  });
}

describe('examples/', () => {
  let laya: LayaFake;
  let sandbox: Sandbox;
  const env = () => sandbox.env({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: laya.url.origin });

  beforeAll(() => requireBuild());
  beforeEach(async () => {
    laya = new LayaFake();
    await laya.start();
    sandbox = new Sandbox();
  });
  afterEach(async () => {
    await laya.stop();
    sandbox.dispose();
  });

  it('triage.js asks its three questions in one engine call and prints each answer', async () => {
    const { code, stdout } = await runExample('triage.js', env(), ['I was charged twice!']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('refund: true (p=0.67), confidence 0.33 (below threshold: decide yourself)');
    expect(lines[1]).toBe('team: billing, confidence 0.50 (below threshold: decide yourself)');
    expect(lines[2]).toMatch(
      /^urgency: level 0 \(expected 1\.00\), confidence 0\.40 \(below threshold: decide yourself\)$/,
    );
    expect(lines[3]).toMatch(/^answered by laya typed-decisions in [\d.]+ ms \(request [0-9a-f-]{36}\)$/);
    expect(laya.requestsTo('/v1/systemone')).toHaveLength(1);
    expect(laya.requests[0].body).toMatchObject({ state: { ticket: 'I was charged twice!' } });
  });

  it('custom-engine.js answers through its registered engine, and falls back to it when laya is down', async () => {
    laya.fault = 'status-503';
    const { code, stdout } = await runExample('custom-engine.js', env());
    expect(code).toBe(0);
    expect(stdout).toBe(
      'keywords alone: team = shipping\nchain laya -> keywords: answered by keywords after laya: unavailable\n',
    );
  });
});
