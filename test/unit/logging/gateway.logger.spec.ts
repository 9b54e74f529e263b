import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GatewayLogger } from '../../../src/logging/gateway.logger';

/** What a terminal or a log reader acts on, the record's own final newline aside: C0, DEL, C1, U+2028/U+2029. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** The tester's request id: clears the screen, turns it red, rewinds the line and rings the bell. */
const FORGED = 'x\u001b[2J\u001b[31mFAKE\rZZZZ forged\u0007';

describe('GatewayLogger', () => {
  const lines: string[] = [];
  const logger = () => new GatewayLogger((line) => lines.push(line));
  beforeEach(() => (lines.length = 0));

  it('writes one plain line per record with level and context, to the stream it is given', () => {
    logger().log('[r-7] decided by mock', 'Gateway');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO  \[Gateway\] \[r-7\] decided by mock\n$/);
  });

  it('honours log_level: INFO hides debug lines (question text), DEBUG shows them', () => {
    const quiet = logger();
    quiet.configure('INFO', '');
    quiet.debug('[r-1] question: "secret plans"', 'Gateway');
    expect(lines).toEqual([]);
    quiet.configure('DEBUG', '');
    quiet.debug('[r-1] question: "secret plans"', 'Gateway');
    expect(lines[0]).toContain('DEBUG [Gateway] [r-1] question');
    quiet.configure('ERROR', '');
    quiet.warn('dropped');
    expect(lines).toHaveLength(1);
  });

  it("drops Nest's start-up chatter unless debugging", () => {
    const log = logger();
    log.log('AppModule dependencies initialized', 'InstanceLoader');
    expect(lines).toEqual([]);
  });

  it("keeps a multi-line message (a stack) on its record's one line, its newlines written as \\n", () => {
    logger().error('boom\n    at frame', 'Mcp');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ERROR \[Mcp\] boom\\n {4}at frame\n$/);
  });

  it('escapes control characters, so a forged request id neither starts a record nor reaches the terminal', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      const file = path.join(dir, 'gateway.log');
      const log = logger();
      log.configure('INFO', file);
      log.log(
        `[${FORGED}] decided by mock\n2026-01-01T00:00:00.000Z ERROR [Gateway] forged\u2028\u0085\u009b2J\u007f`,
        'Gateway',
      );
      expect(lines).toHaveLength(1);
      const [record] = lines;
      expect(record.endsWith('\n')).toBe(true);
      expect(record.slice(0, -1)).not.toMatch(CONTROL);
      expect(record).toContain('[x\\u001b[2J\\u001b[31mFAKE\\rZZZZ forged\\u0007] decided by mock\\n2026-01-01');
      expect(record).toContain('forged\\u2028\\u0085\\u009b2J\\u007f\n');
      expect(readFileSync(file, 'utf8')).toBe(record);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates log_file 0600 in a new 0700 folder: the log holds decisions and their ids', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    const umask = process.umask(0o022);
    try {
      const file = path.join(dir, 'private', 'gateway.log');
      logger().configure('INFO', file);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(umask);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a log_file that is a FIFO, saying so, without waiting for a reader', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      const fifo = path.join(dir, 'gateway.log');
      execFileSync('mkfifo', [fifo]);
      // In a child with a kill timer: a regression that opens the FIFO for writing waits there for a reader.
      const built = path.join(__dirname, '..', '..', '..', 'dist', 'logging', 'gateway.logger.js');
      const script = `const { gatewayLogger } = require(${JSON.stringify(built)}); gatewayLogger.configure('INFO', ${JSON.stringify(fifo)}); gatewayLogger.log('after', 'Test');`;
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(process.execPath, ['-e', script], { timeout: 10_000 }, (error, _stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr: String(stderr) }),
        );
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`cannot open log_file ${fifo}: ${fifo} is a FIFO, not a regular file`);
      expect(result.stderr).toContain('INFO  [Test] after');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('also appends to log_file when one is set, creating its folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      const file = path.join(dir, 'nested', 'gateway.log');
      const log = logger();
      log.configure('INFO', file);
      log.log('[r-9] first', 'Gateway');
      log.warn('[r-9] second', 'Gateway');
      const written = readFileSync(file, 'utf8');
      expect(written.split('\n').filter(Boolean)).toHaveLength(2);
      expect(written).toBe(lines.join(''));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps logging to stderr when log_file cannot be written', async () => {
    const log = logger();
    log.configure('INFO', '/proc/not-writable/gateway.log');
    log.log('[r-2] still here', 'Gateway');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.some((line) => line.includes('[r-2] still here'))).toBe(true);
    expect(lines.some((line) => line.includes('cannot'))).toBe(true);
  });
});
