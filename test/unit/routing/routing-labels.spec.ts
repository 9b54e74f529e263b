/**
 * Labels for `system1 label apply`: every problem named with its line (in JSONL and in a JSON array laid
 * out over lines), nothing taken from a file with one bad line; and the log's lock taken over when a dead
 * process left it.
 */
import { mkdtempSync, readFileSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { withLogLock } from '../../../src/logging/log-lock';
import { isWaitingForLabels, parseLabels } from '../../../src/routing/routing-labels';

const KNOWN = new Set(['p1', 'p2', 'p3']);
const good = (id: string, tier = 'sonnet') => ({
  id,
  read_only: false,
  design: false,
  review: false,
  specified: true,
  tier,
});

describe('parseLabels', () => {
  it('takes JSONL and a JSON array alike', () => {
    const jsonl = [good('p1'), good('p2', 'opus')].map((item) => JSON.stringify(item)).join('\n') + '\n';
    const array = JSON.stringify([good('p1'), good('p2', 'opus')], null, 2);
    for (const text of [jsonl, array]) {
      const { labels, problems } = parseLabels(text, KNOWN);
      expect(problems).toEqual([]);
      expect(labels.get('p2')).toEqual({
        read_only: false,
        design: false,
        review: false,
        specified: true,
        tier: 'opus',
      });
    }
  });

  it.each([
    [{ ...good('p1'), design: 'yes' }, '"design" must be true or false'],
    [{ ...good('p1'), specified: undefined }, '"specified" must be true or false'],
    [good('p1', 'giant'), '"tier" must be one of haiku, sonnet, opus'],
    [good('nope'), 'unknown id "nope": no routed prompt in the log has it'],
    [{ ...good('p1'), id: 7 }, '"id" must be the string id `label list` gave'],
    [
      { ...good('p1'), mood: 'fine' },
      'unknown field "mood": expected id, read_only, design, review, specified and tier',
    ],
    [['p1'], 'not a JSON object'],
  ])('refuses %j: %s', (item, problem) => {
    const text = [JSON.stringify(good('p2')), JSON.stringify(item)].join('\n');
    expect(parseLabels(text, KNOWN)).toEqual({ labels: new Map(), problems: [{ line: 2, problem }] });
  });

  it('names each bad line of a JSON array by the line its element starts on, and takes nothing', () => {
    const text = `[\n  ${JSON.stringify(good('p1'))},\n  {\n    "id": "p2",\n    "read_only": 1\n  },\n  ${JSON.stringify(good('p9'))}\n]\n`;
    expect(parseLabels(text, KNOWN)).toEqual({
      labels: new Map(),
      problems: [
        { line: 3, problem: '"read_only" must be true or false' },
        { line: 7, problem: 'unknown id "p9": no routed prompt in the log has it' },
      ],
    });
  });

  it('a line that is not JSON, an id given twice, and a broken array', () => {
    expect(
      parseLabels(`${JSON.stringify(good('p1'))}\n{"id": "p2",\n${JSON.stringify(good('p1'))}`, KNOWN).problems,
    ).toEqual([
      { line: 2, problem: 'not valid JSON' },
      { line: 3, problem: 'id "p1" is labelled twice' },
    ]);
    expect(parseLabels('[\n{"id": "p1"},\n{oops}\n]', KNOWN).problems).toEqual([
      { line: 3, problem: 'not valid JSON' },
    ]);
  });
});

describe('isWaitingForLabels', () => {
  it('a routed prompt with an id and no labels object', () => {
    expect(isWaitingForLabels({ source: 'routing', prompt_id: 'p1' })).toBe(true);
    expect(isWaitingForLabels({ source: 'routing', prompt_id: 'p1', labels: { read_only: true } })).toBe(false);
    expect(isWaitingForLabels({ source: 'routing', prompt_id: null })).toBe(false);
    expect(isWaitingForLabels({ source: 'skill', prompt_id: 'p1' })).toBe(false);
    // A prompt that merely mentions "labels" still waits (session-check once counted by substring).
    expect(isWaitingForLabels({ source: 'routing', prompt_id: 'p1', prompt: 'add "labels" to the chart' })).toBe(true);
  });
});

describe('withLogLock', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'log-lock-'));
  const log = path.join(dir, 'routing.jsonl');

  it('holds <log>.lock while the work runs and removes it after, even when the work throws', () => {
    expect(withLogLock(log, () => readFileSync(`${log}.lock`, 'utf8'))).toBe(`${process.pid}\n`);
    expect(existsSync(`${log}.lock`)).toBe(false);
    expect(() =>
      withLogLock(log, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(existsSync(`${log}.lock`)).toBe(false);
  });

  it('waits for a live lock, then gives up naming it; takes over a stale one', () => {
    writeFileSync(`${log}.lock`, '12345\n');
    expect(() => withLogLock(log, () => 'ran', 50)).toThrow(`${log}.lock is held by another process`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${log}.lock`, old, old);
    expect(withLogLock(log, () => 'ran', 50)).toBe('ran');
    expect(existsSync(`${log}.lock`)).toBe(false);
  });
});
