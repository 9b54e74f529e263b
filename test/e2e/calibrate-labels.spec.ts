/**
 * `system1 calibrate` reads a label as the option it names exactly: options that differ only by case are
 * different answers, so an engine that always picks `A` is wrong on every line labelled `a`. A label that
 * matches no option exactly but two up to case is skipped as ambiguous, with its line number; one that
 * matches a single option up to case is read as it, and the run says so once.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LayaFake } from '../fakes/laya.fake';
import { type Json, requireBuild, Resources, runCli } from './helpers/gateway';

const resources = Resources.perTest();
let fake: LayaFake;
beforeAll(async () => {
  requireBuild();
  fake = new LayaFake();
  // Always the first option, surely: `A` on the A/a question.
  fake.answerChoice = (question) =>
    Object.fromEntries(
      question.options.map((option, i) => [option, i === 0 ? 0.9 : 0.1 / (question.options.length - 1)]),
    );
  await fake.start();
});
afterAll(() => fake.stop());

const CASE_QUESTION = 'Which letter, upper or lower case?';

it('scores a label against the option it names exactly, skips one that matches two options only by case, and notes loose labels once', async () => {
  const sandbox = resources.sandbox();
  const rows: object[] = Array.from({ length: 40 }, () => ({
    question: CASE_QUESTION,
    options: ['A', 'a'],
    label: 'a',
  }));
  rows.splice(5, 0, { question: 'Ship it?', options: ['Yes', 'YES'], label: 'yes' }); // line 6: ambiguous
  rows.splice(9, 0, { question: 'Rerun or block?', options: ['rerun', 'block'], label: 'Rerun' }); // line 10: loose
  rows.splice(14, 0, { question: 'Rerun or block?', options: ['rerun', 'block'], label: ' rerun ' }); // line 15: loose
  const data = path.join(sandbox.dir, 'data.jsonl');
  writeFileSync(data, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');

  const result = await runCli(
    ['calibrate', data, '--json'],
    sandbox.env({ SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: fake.url.origin }),
    120_000,
  );
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Json;
  expect(report.rows).toMatchObject({ examples: 42, answered: 42, failed: 0 });
  expect(report.rows.lines_skipped).toEqual([
    {
      line: 6,
      problem:
        'label "yes" is ambiguous: it matches "Yes" and "YES" only up to case or spaces; write it exactly as one option',
    },
  ]);
  expect(result.stderr).toContain(`${data}:6: skipped: label "yes" is ambiguous`);

  // The engine answered `A` to every line labelled `a`: wrong each time, so no threshold reaches the target.
  const caseQuestion = report.questions.find((q: Json) => q.question === CASE_QUESTION);
  expect(caseQuestion).toMatchObject({ n: 40, accuracy: 0 });
  expect(caseQuestion.recommended_threshold).toBeNull();
  // The two loose labels named `rerun`, the engine's pick: right, and counted in the overall accuracy.
  expect(report.overall.accuracy).toBeCloseTo(2 / 42, 10);
  expect(report.overall.recommended_threshold).toBeNull();

  // One note for both loose labels, naming the first.
  const notes = result.stderr.split('\n').filter((line) => line.includes('only up to case or spaces and were read as'));
  expect(notes).toEqual([
    `${data}: 2 labels match an option only up to case or spaces and were read as it (the first, line 10: "Rerun" as "rerun"); write labels exactly as their option`,
  ]);
});
