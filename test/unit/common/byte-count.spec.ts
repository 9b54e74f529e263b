/**
 * One way to write a size (issue 40): the caps of files the gateway reads (config, fits, logs, the hook's
 * input), the router's body and shadow limits, and the model pull's sizes all go through formatBytes. The two
 * copies disagreed: the pull wrote "64.0 KiB" and "1.0 MiB", the file and router caps "2 KiB" for 1.5 KiB and
 * "2048 MiB" for 2 GiB. The one kept writes a decimal only where it says something, in units up to TiB.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { formatBytes } from '../../../src/common/byte-count';
import { readRegularFileSync } from '../../../src/common/regular-file';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

it.each([
  [0, '0 bytes'],
  [1023, '1023 bytes'],
  [KiB, '1 KiB'],
  [1536, '1.5 KiB'],
  [32 * KiB, '32 KiB'],
  [700 * KiB, '700 KiB'],
  [MiB - 1, '1 MiB'],
  [8 * MiB, '8 MiB'],
  [64 * MiB, '64 MiB'],
  [2 * GiB, '2 GiB'],
  [1.25 * GiB, '1.3 GiB'],
  [3 * 1024 * GiB, '3 TiB'],
  [5000 * 1024 * GiB, '5000 TiB'],
])('writes %d bytes as %j', (bytes, words) => {
  expect(formatBytes(bytes)).toBe(words);
});

describe('a file over its cap', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'system1-bytes-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [64 * KiB, 32 * KiB, 'is over the 32 KiB cap (64 KiB+)'],
    [2 * KiB, 1536, 'is over the 1.5 KiB cap (2 KiB+)'],
  ])('of %d bytes under a cap of %d says so as the model pull does: %j', (size, cap, words) => {
    const file = path.join(dir, 'config.toml');
    writeFileSync(file, 'x'.repeat(size));
    expect(() => readRegularFileSync(file, cap)).toThrow(`${file} ${words}`);
  });
});
