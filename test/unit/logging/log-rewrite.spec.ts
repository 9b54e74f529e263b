/**
 * A log rewritten in place (`label apply`) while the hooks append to it, as a user meets it: an append made
 * while the rewrite reads neither waits for the whole rewrite nor is lost; a rewrite another one lands
 * meanwhile is not undone; a damaged line (megabytes without a newline, NUL bytes, invalid UTF-8) comes
 * through byte for byte without being held; and a log that is a symbolic link is refused, the link and the
 * file it names left as they were.
 */
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { appendToLog } from '../../../src/logging/log-file';
import { withLogLock } from '../../../src/logging/log-lock';
import { rewriteLogLines } from '../../../src/logging/log-rewrite';

let dir: string;
let log: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'log-rewrite-'));
  log = path.join(dir, 'routing.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CAP = 1024 * 1024;
const entry = (id: string) => JSON.stringify({ source: 'routing', prompt_id: id });
const labelled = (line: string) => line.replace('}', ',"labels":true}');
/** Labels every routed line: the replacement `label apply` makes. */
const labelAll = (line: string) => (line.includes('"routing"') ? labelled(line) : undefined);

it('lets an append made while it reads the log through at once, and keeps that line', () => {
  writeFileSync(log, `${entry('p1')}\n${entry('p2')}\n`);
  let appended = false;
  const replaced = rewriteLogLines(
    log,
    (line) => {
      if (!appended) {
        // The hook's append, allowed no wait at all: the copy of the bulk must not hold the lock.
        withLogLock(log, () => appendToLog(log, `${entry('hook')}\n`), 0);
        appended = true;
      }
      return labelAll(line);
    },
    { maxLineBytes: CAP },
  );
  expect(replaced).toBe(3);
  expect(readFileSync(log, 'utf8')).toBe([entry('p1'), entry('p2'), entry('hook')].map(labelled).join('\n') + '\n');
  expect(readdirSync(dir)).toEqual(['routing.jsonl']);
});

it('does not undo a rewrite that another one lands while it reads: it starts again from that one', () => {
  writeFileSync(log, `${entry('p1')}\n${entry('p2')}\n`);
  let nested = false;
  rewriteLogLines(
    log,
    (line) => {
      if (!nested) {
        nested = true;
        // Another `label apply` (say, from a second terminal) finishes first, and the hook appends after it.
        rewriteLogLines(log, (other) => (other.includes('"p2"') ? other.replace('}', ',"other":1}') : undefined), {
          maxLineBytes: CAP,
        });
        withLogLock(log, () => appendToLog(log, `${entry('hook')}\n`), 0);
      }
      return line.includes('"p1"') ? labelled(line) : undefined;
    },
    { maxLineBytes: CAP },
  );
  expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
    labelled(entry('p1')),
    entry('p2').replace('}', ',"other":1}'),
    entry('hook'),
  ]);
});

it('copies a line over the cap (NUL bytes, no JSON) byte for byte without offering it, and keeps invalid UTF-8', () => {
  const long = Buffer.concat([Buffer.from('{"source":"routing","x":"'), Buffer.alloc(3 * CAP), Buffer.from('"}')]);
  const invalid = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
  const tail = Buffer.from('{"source":"routing","cut":'); // a last line cut off at a crash: no newline
  const lines = [Buffer.from(entry('p1')), long, invalid, Buffer.from(entry('p2'))];
  writeFileSync(log, Buffer.concat([...lines.flatMap((line) => [line, Buffer.from('\n')]), tail]));
  const offered: number[] = [];
  rewriteLogLines(
    log,
    (line) => {
      offered.push(line.length);
      return labelAll(line);
    },
    { maxLineBytes: CAP },
  );
  expect(Math.max(...offered)).toBeLessThanOrEqual(CAP);
  expect(offered).toHaveLength(3); // p1, the invalid line, p2: not the long line, nor the tail cut off
  const expected = Buffer.concat([
    Buffer.from(`${labelled(entry('p1'))}\n`),
    long,
    Buffer.from('\n'),
    invalid,
    Buffer.from(`\n${labelled(entry('p2'))}\n`),
    tail,
  ]);
  expect(readFileSync(log).equals(expected)).toBe(true);
});

it('refuses a log that is a symbolic link, naming it, and leaves the link and the file it names as they were', () => {
  const elsewhere = path.join(dir, 'elsewhere.txt');
  writeFileSync(elsewhere, `${entry('p1')}\n`);
  symlinkSync(elsewhere, log);
  expect(() => rewriteLogLines(log, labelAll, { maxLineBytes: CAP })).toThrow(
    `${log} is a symbolic link (to ${elsewhere}), not a regular file`,
  );
  expect(lstatSync(log).isSymbolicLink()).toBe(true);
  expect(readFileSync(elsewhere, 'utf8')).toBe(`${entry('p1')}\n`);
  expect(existsSync(`${log}.lock`)).toBe(false);
  expect(readdirSync(dir).sort()).toEqual(['elsewhere.txt', 'routing.jsonl']);
});
