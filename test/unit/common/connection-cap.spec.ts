/** The connection cap's warning: one line per period at most, and the count of every connection it closed. */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { warnOnDrops } from '../../../src/common/http/connection-cap';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

function cappedServer() {
  const server = new EventEmitter();
  const lines: string[] = [];
  warnOnDrops(server as unknown as Server, 256, (line) => lines.push(line));
  const drop = (times: number) => {
    for (let i = 0; i < times; i++) server.emit('drop');
  };
  return { server, lines, drop };
}

/** The connections the warnings say were closed, added up. */
const told = (lines: string[]) => lines.reduce((sum, line) => sum + Number(/closed (\d+) /.exec(line)?.[1]), 0);

describe('the connection cap warning', () => {
  it('a burst of 144 closed connections is told as 144, not as the first one alone', () => {
    const { lines, drop } = cappedServer();
    drop(144);
    expect(lines).toEqual([
      'closed 1 new connection at the connection cap (256): that many clients are already connected',
    ]);
    jest.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      'closed 143 new connections at the connection cap (256): that many clients are already connected',
    );
    expect(told(lines)).toBe(144);
  });

  it('says nothing more when nothing more was closed, and at most one line per 10 s under a steady stream', () => {
    const { lines, drop } = cappedServer();
    drop(1);
    jest.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(1);
    for (let second = 0; second < 30; second++) {
      drop(5);
      jest.advanceTimersByTime(1_000);
    }
    jest.advanceTimersByTime(10_000);
    expect(lines.length).toBeLessThanOrEqual(1 + 4);
    expect(told(lines)).toBe(1 + 150);
  });

  it('tells the last count when the server closes before the period ends', () => {
    const { server, lines, drop } = cappedServer();
    drop(3);
    server.emit('close');
    expect(told(lines)).toBe(3);
    jest.advanceTimersByTime(10_000);
    expect(told(lines)).toBe(3);
  });
});
