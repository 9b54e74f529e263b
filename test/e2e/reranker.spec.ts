/**
 * The gateway's `systemone` provider against the real reranker server (engines/reranker/serve.js) over its
 * tiny test cross-encoder, made at test time: `system1_decide` decided by it, the routing hook's four
 * features in one request, and `system1 smoke` passing every layer. Needs `cd engines/reranker && npm ci`
 * (.ci/run does it first); without it the suite is skipped, loudly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { requireBuild, Resources, ROOT, runCli, runCommand } from './helpers/gateway';
import { eventually } from '../helpers/eventually';
import { describeUnless } from '../helpers/skip-unless';

const ENGINE = path.join(ROOT, 'engines', 'reranker');
const installed = existsSync(path.join(ENGINE, 'node_modules', 'onnxruntime-node'));
if (!installed) {
  console.warn(
    `\n*** SKIPPING test/e2e/reranker.spec.ts: ${path.join(ENGINE, 'node_modules')} is missing. ` +
      `Run: cd engines/reranker && npm ci (.ci/run does) ***\n`,
  );
}
const describeInstalled = describeUnless(
  installed ? undefined : 'engines/reranker/node_modules is missing: cd engines/reranker && npm ci (.ci/run does)',
);

/** The bearer token both sides are given, so the token rule runs end to end too. */
const KEY = 'reranker-e2e-key-2f9c';

describeInstalled('the reranker engine behind the systemone provider', () => {
  const resources = Resources.perTest();
  let scratch: string;
  let engine: ChildProcess;
  let endpoint: string;
  const engineOutput: string[] = [];
  const decisionLines = () =>
    engineOutput
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('reranker: decision:'));

  beforeAll(async () => {
    requireBuild();
    scratch = mkdtempSync(path.join(tmpdir(), 'system1-reranker-'));
    const model = path.join(scratch, 'tiny-cross-encoder');
    const made = await runCommand(process.execPath, [path.join(ENGINE, 'test-support', 'tiny-model.js'), model], {
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(made).toMatchObject({ code: 0, stderr: '' });
    engine = spawn(
      process.execPath,
      [path.join(ENGINE, 'serve.js'), '--model', model, '--port', '0', '--device', 'cpu', '--log-decisions'],
      {
        env: { PATH: process.env.PATH ?? '', SYSTEM1_SYSTEMONE_API_KEY: KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    engine.stderr!.on('data', (chunk: Buffer) => engineOutput.push(chunk.toString('utf8')));
    endpoint = await new Promise<string>((resolve, reject) => {
      engine.stdout!.on('data', (chunk: Buffer) => {
        engineOutput.push(chunk.toString('utf8'));
        const origin = /serving .* on (http:\/\/127\.0\.0\.1:\d+)/.exec(engineOutput.join(''))?.[1];
        if (origin) resolve(origin);
      });
      engine.once('exit', (code) => reject(new Error(`the reranker exited with ${code}:\n${engineOutput.join('')}`)));
    });
  });

  afterAll(() => {
    engine?.kill();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const config = (extra = '') =>
    `[gateway]\nprovider = "systemone"\nmin_confidence = 0.1\n[providers.systemone]\nendpoint = "${endpoint}"\n${extra}`;

  it('decides system1_decide with the cross-encoder: the option its scores favour, with its probabilities', async () => {
    const gateway = await resources.server({ config: config(), env: { SYSTEM1_SYSTEMONE_API_KEY: KEY } });
    const before = decisionLines().length;
    const { body } = await gateway.decide({
      question: 'Which team should handle a refund?',
      options: ['later', 'refunds'],
    });
    // The tiny model scores "refund" 4 and "##s" 0.5 beside a query, "later" -2: refunds wins.
    expect(body).toMatchObject({ status: 'decided', decision: 'refunds', provider: 'systemone', error: null });
    expect(body.probabilities.refunds).toBeGreaterThan(body.probabilities.later);
    expect(body.rationale).toMatch(/^systemone .*refunds=/);
    // The engine logs a decision as it answers; its line reaches this process through a pipe, maybe later.
    await eventually(() => decisionLines().length > before, "the reranker's line for the decision");
    expect(decisionLines().length - before).toBe(1);
  });

  it("answers the routing hook's four features in one request", async () => {
    const sandbox = resources.sandbox();
    const repo = path.join(sandbox.dir, 'repo');
    mkdirSync(repo, { recursive: true });
    const logFile = path.join(sandbox.dir, 'routing.jsonl');
    const file = sandbox.writeConfig(
      `${config()}[routing]\nenabled = true\nmin_confidence = 0.1\nlog_dirs = ["${repo}"]\nlog_file = "${logFile}"\n`,
    );
    const before = decisionLines().length;
    const prompt = 'Design the architecture for the new billing service and decide between a queue and cron jobs';
    const hook = await runCli(
      ['route-hook'],
      sandbox.env({ SYSTEM1_CONFIG: file, SYSTEM1_SYSTEMONE_API_KEY: KEY }),
      30_000,
      {
        session_id: 's-1',
        hook_event_name: 'UserPromptSubmit',
        prompt_id: 'p-1',
        cwd: repo,
        prompt,
      },
    );
    expect(hook.code).toBe(0);
    expect(JSON.parse(hook.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        additionalContext: expect.stringContaining('pass model: "'),
      },
    });
    await eventually(() => decisionLines().length > before, "the reranker's line for the hook's request");
    const added = decisionLines().slice(before);
    expect(added).toEqual([
      expect.stringMatching(
        /^reranker: decision: 4 question\(s\) "read_only", "design", "review", "specified"; 8 pairs, /,
      ),
    ]);
    const [line] = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(line).toMatchObject({ source: 'routing', prompt, provider: 'systemone' });
    expect(Object.keys(line.features)).toEqual(['read_only', 'design', 'review', 'specified']);
  });

  it('passes every layer of system1 smoke', async () => {
    const sandbox = resources.sandbox();
    const file = sandbox.writeConfig(config());
    const result = await runCli(
      [
        'smoke',
        '--provider',
        'systemone',
        '--question',
        'Which team should handle a refund?',
        '--options',
        'refunds',
        'later',
      ],
      sandbox.env({ SYSTEM1_CONFIG: file, SYSTEM1_SYSTEMONE_API_KEY: KEY }),
    );
    for (const layer of ['start', 'handshake', 'tools', 'health', 'decision']) {
      expect(result.stdout).toMatch(new RegExp(`^PASS\\s+${layer}\\b`, 'm'));
    }
    expect(result.stdout).not.toMatch(/^FAIL/m);
    expect(result.stdout).toContain('"decision": "refunds"');
    // The latency it saw for the health call and the decision, the engine's run included.
    expect(result.stdout).toMatch(/^PASS\s+health\b.* \(answered in \d+ ms\)$/m);
    expect(result.stdout).toMatch(/^PASS\s+decision\s+decided "refunds" .* from systemone, in \d+ ms$/m);
    expect(result.code).toBe(0);
  });

  it('reports the engine refusing a gateway without the key, naming the variable and never the key', async () => {
    const gateway = await resources.server({ config: config() });
    const { body } = await gateway.decide({
      question: 'Which team should handle a refund?',
      options: ['later', 'refunds'],
    });
    expect(body.status).not.toBe('decided');
    expect(JSON.stringify(body)).toContain('SYSTEM1_SYSTEMONE_API_KEY');
    expect(JSON.stringify(body)).not.toContain(KEY);
  });
});
