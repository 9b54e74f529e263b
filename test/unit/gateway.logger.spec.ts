import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GatewayLogger } from '../../src/logging/gateway.logger';

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

  it('keeps a multi-line message on indented lines so every record starts a line', () => {
    logger().error('boom\nat frame', 'Mcp');
    expect(lines[0]).toMatch(/ERROR \[Mcp\] boom\n {4}at frame\n$/);
  });

  it('also appends to log_file when one is set, creating its folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-log-'));
    try {
      const file = path.join(dir, 'nested', 'gateway.log');
      const log = logger();
      log.configure('INFO', file);
      log.log('[r-9] first', 'Gateway');
      log.warn('[r-9] second', 'Gateway');
      await new Promise((resolve) => setTimeout(resolve, 50));
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
