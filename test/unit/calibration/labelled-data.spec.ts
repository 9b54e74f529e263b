import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readLabelledData } from '../../../src/commands/calibrate/labelled-data';
import { feedFifo, fifoIt, makeFifo } from '../../helpers/fifo';

const ROW = JSON.stringify({ question: 'Rerun or block?', options: ['rerun', 'block'], label: 'block' });

describe('labelled data for calibrate', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 's1-labelled-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the examples of a regular file (control)', () => {
    const file = path.join(dir, 'data.jsonl');
    writeFileSync(file, `${ROW}\nnot json\n`);
    expect(readLabelledData(file)).toEqual({
      examples: [{ line: 1, question: 'Rerun or block?', options: ['rerun', 'block'], yesNo: false, label: 1 }],
      problems: [{ line: 2, problem: 'not valid JSON' }],
    });
  });

  fifoIt('refuses a FIFO, naming it, instead of waiting on it', () => {
    const fifo = makeFifo(dir, 'data.jsonl');
    const feeder = feedFifo(fifo, `${ROW}\n`);
    try {
      expect(() => readLabelledData(fifo)).toThrow(`${fifo} is a FIFO, not a regular file`);
    } finally {
      feeder.stop();
    }
  });
});
