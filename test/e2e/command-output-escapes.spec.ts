/**
 * An engine's text reaches what commands print (its error message, the names its /health lists): `smoke`,
 * `calibrate` and `evaluate --live` print every line with its control characters escaped, as the logs do,
 * so the engine can neither drive the terminal (clear the screen, rewind the line) nor forge a line of its
 * own (a READY verdict, a PASS layer).
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { type CliResult, type Json, requireBuild, Resources, runCli, type Sandbox } from './helpers/gateway';

/** Clears the screen, rewinds the line, then starts forged lines (after a newline, a U+2028, a C1 CSI). */
const HOSTILE = 'model melted\x1b[2J\x1b[H\rREADY\nPASS  decision  forged\u2028READY\u009b2J\u0085READY';
/** Every control character the escaping covers, bar the newline that ends each printed line. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

/** laya-serve whose error bodies carry the hostile text, and whose /health lists a checkpoint named by it. */
class HostileLaya extends LayaFake {
  protected override errorBody(): unknown {
    return { detail: HOSTILE };
  }
}

const resources = Resources.perTest();
let fake: HostileLaya;
beforeAll(async () => {
  requireBuild();
  fake = new HostileLaya();
  fake.fault = 'status-500'; // decisions only: its health route answers, so each command gets to ask
  fake.loaded = ['typed-decisions', `english${HOSTILE}`];
  await fake.start();
});
afterAll(() => fake.stop());

const layaEnv = (sandbox: Sandbox) => sandbox.env({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: fake.url.origin });

/**
 * What a terminal would show is the engine's text in one piece, inside the line the command wrote it in:
 * no raw control character, no line of its own, and each line holding any of it holds all of it escaped.
 */
function expectEscaped(result: CliResult, minimumLines = 1): void {
  const output = result.stdout + result.stderr;
  expect(output).not.toMatch(RAW_CONTROL);
  const carrying = output.split('\n').filter((line) => line.includes('forged'));
  expect(carrying.length).toBeGreaterThanOrEqual(minimumLines);
  for (const line of carrying) expect(line).toContain('model melted\\u001b[2J\\u001b[H');
  expect(output).not.toMatch(/^(READY|PASS\s+decision)/m);
}

it('smoke prints the engine error and /health names escaped, on the layer lines they belong to', async () => {
  const result = await runCli(['smoke', '--question', 'Q', '--options', 'a', 'b'], layaEnv(resources.sandbox()));
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(
    /^PASS {2}health {4}ok; laya \(primary\) up: .*loaded: typed-decisions, englishmodel melted/m,
  );
  expect(result.stdout).toMatch(/^FAIL {2}decision {2}error provider_error: .*model melted/m);
  expectEscaped(result, 2);
});

it('smoke --json stays one valid JSON document, holding the engine text unchanged', async () => {
  const result = await runCli(
    ['smoke', '--question', 'Q', '--options', 'a', 'b', '--json'],
    layaEnv(resources.sandbox()),
  );
  expect(result.stdout).not.toMatch(RAW_CONTROL);
  const report = JSON.parse(result.stdout) as Json;
  expect(report.health.providers[0].detail).toContain(`english${HOSTILE}`);
});

it('calibrate prints why it stopped with the engine error escaped', async () => {
  const sandbox = resources.sandbox();
  const data = path.join(sandbox.dir, 'data.jsonl');
  const row = { question: 'Which one?', options: ['a', 'b'], label: 'a' };
  writeFileSync(data, `${Array.from({ length: 12 }, () => JSON.stringify(row)).join('\n')}\n`);
  const result = await runCli(['calibrate', data], layaEnv(sandbox));
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(/^ {2}stopped early: .*model melted/m);
  expectEscaped(result);
});

it('evaluate --live prints the engine error escaped, and no forged READY verdict', async () => {
  const sandbox = resources.sandbox();
  const log = path.join(sandbox.dir, 'routing.jsonl');
  const features = { read_only: false, design: true, review: false, specified: true };
  const lines = Array.from({ length: 5 }, (_, i) => [
    {
      source: 'routing',
      prompt_id: `p${i}`,
      prompt: `Task ${i}: design the module part-${i} and what it needs`,
      provider: 'von',
      features: {},
      tier: 'opus',
      labels: features,
    },
    { source: 'spawn', prompt_id: `p${i}`, tool_use_id: `t${i}`, model: 'opus' },
    { source: 'outcome', tool_use_id: `t${i}`, outcome: 'succeeded', resolved_model: 'claude-opus-4-5' },
  ]).flat();
  writeFileSync(log, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  const result = await runCli(['evaluate', '--live', '--provider', 'laya', '--log', log], layaEnv(sandbox));
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(/^NOT READY$/m);
  expect(result.stderr).toMatch(
    /^system1 evaluate: laya answered none of the \d+ prompts asked \(the last: .*model melted/m,
  );
  expectEscaped(result);
});
