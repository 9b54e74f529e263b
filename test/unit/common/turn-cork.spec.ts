import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { TurnCork } from '../../../src/common/turn-cork';

const DIST = path.resolve(__dirname, '../../../dist');

/** A stream that records each write call it receives: one entry per call, with the chunks it carried. */
function recordingStream() {
  const calls: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      calls.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      calls.push(chunks.map(({ chunk }) => String(chunk)));
      done();
    },
  });
  return { stream, calls };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnCork', () => {
  it('lets the writes of one turn go as one write when the turn ends, and each turn its own', async () => {
    const { stream, calls } = recordingStream();
    const cork = new TurnCork(stream);
    for (const line of ['a\n', 'b\n', 'c\n']) {
      cork.hold();
      stream.write(line);
    }
    await Promise.resolve(); // a later tick of the same turn: still held
    expect(calls).toEqual([]);
    await nextTurn();
    expect(calls).toEqual([['a\n', 'b\n', 'c\n']]);

    cork.hold();
    stream.write('d\n');
    await nextTurn();
    expect(calls).toEqual([['a\n', 'b\n', 'c\n'], ['d\n']]);
  });

  it("writes a server's held log lines when the process exits in mid-turn, after one write per turn", () => {
    // A child with the built logger in the servers' mode: two lines, then a third and an exit in the same turn.
    const script = `
      const { GatewayLogger } = require(${JSON.stringify(path.join(DIST, 'logging', 'gateway.logger.js'))});
      const writes = { write: 0, writev: 0 };
      for (const kind of ['write', 'writev']) {
        const original = process.stderr['_' + kind].bind(process.stderr);
        process.stderr['_' + kind] = (...args) => (writes[kind]++, original(...args));
      }
      const logger = new GatewayLogger();
      logger.linesPerTurn();
      logger.log('first line');
      logger.warn('second line');
      setImmediate(() => {
        process.stdout.write(JSON.stringify(writes));
        logger.log('last line, then exit');
        process.exit(0);
      });
    `;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
    expect(child.status).toBe(0);
    // The turn's lines joined into one text: one write, whatever the stream (a pipe here, a file or /dev/null alike).
    expect(JSON.parse(child.stdout)).toEqual({ write: 1, writev: 0 });
    const lines = child.stderr.trim().split('\n');
    expect(lines.map((line) => line.replace(/^\S+ /, ''))).toEqual([
      'INFO  first line',
      'WARN  second line',
      'INFO  last line, then exit',
    ]);
  });
});
