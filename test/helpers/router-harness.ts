/**
 * The router in this process on a loopback socket, with a stub fast engine and the fake upstream, plus the
 * raw HTTP a hostile client writes (partial headers, bodies bigger than they say, many sockets) and exactly
 * what such a client gets back.
 */
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, type OutgoingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DecisionsApi } from '../../src/decisions-api/decisions-api';
import { OpenAiRouterService, type RunningRouter } from '../../src/openai-router/openai-router.service';
import type { ListenOptions } from '../../src/openai-router/router-options';
import { OpenAiUpstreamFake } from '../fakes/openai-upstream.fake';
import { choice, noul, score, StubDecider } from './stub-decider';

export const confidentDecider = () =>
  new StubDecider({
    category: choice('subscriptions', 0.97),
    is_recurring: noul(0.98),
    channel: choice('online', 0.9),
    review_priority: score(0, 0.95),
  });

/** One router per test, stopped afterwards with its upstream; the Nest logger's lines are kept. */
export class RouterHarness {
  upstream!: OpenAiUpstreamFake;
  upstreamUrl!: string;
  dir!: string;
  readonly logLines: string[] = [];
  private readonly routers: RunningRouter[] = [];

  /** Registers the per-test setup and teardown in the enclosing describe. */
  static use(): RouterHarness {
    const harness = new RouterHarness();
    beforeEach(async () => {
      harness.upstream = new OpenAiUpstreamFake();
      harness.upstream.answer = {
        category: 'subscriptions',
        is_recurring: true,
        channel: 'online',
        review_priority: 2,
      };
      harness.upstreamUrl = await harness.upstream.start();
      harness.dir = mkdtempSync(path.join(tmpdir(), 'system1-router-'));
      harness.logLines.length = 0;
      for (const level of ['log', 'warn', 'error'] as const) {
        jest
          .spyOn(Logger.prototype, level)
          .mockImplementation((...args: unknown[]) => void harness.logLines.push(String(args[0])));
      }
    });
    afterEach(async () => {
      await Promise.all(harness.routers.splice(0).map((router) => router.close()));
      await harness.upstream.stop();
      rmSync(harness.dir, { recursive: true, force: true });
      jest.restoreAllMocks();
    });
    return harness;
  }

  /**
   * Starts a router on 127.0.0.1 (a free port unless given) in front of the fake upstream; `decisionsApi`
   * answers its decisions routes.
   */
  async start(
    overrides: Partial<ListenOptions> = {},
    decider: StubDecider = confidentDecider(),
    decisionsApi?: Pick<DecisionsApi, 'answer'>,
  ): Promise<RunningRouter & { port: number }> {
    const options: ListenOptions = {
      host: '127.0.0.1',
      port: 0,
      upstream: new URL(this.upstreamUrl),
      minConfidence: 0.8,
      shadow: false,
      shadowLog: path.join(this.dir, 'shadow.jsonl'),
      ...overrides,
    };
    const running = await new OpenAiRouterService(decider.decide).listen(options, decisionsApi);
    this.routers.push(running);
    return { ...running, port: Number(new URL(running.baseUrl).port) };
  }

  /** The log lines that report a request's answer with this status. */
  answered(status: number): string[] {
    return this.logLines.filter((line) => line.includes(` -> ${status}`));
  }
}

/** What a client read back: the status, the headers and the body. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export const errorOf = (answer: Answer) =>
  (JSON.parse(answer.text) as { error: { message: string; type: string; code: string } }).error;

export interface Exchange {
  method?: string;
  path?: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  /** The address to connect to (127.0.0.1 unless given). */
  address?: string;
}

/** One request on its own connection; rejects with the socket error a client would see. */
export function send(
  port: number,
  { method = 'POST', path: target = '/v1/chat/completions', headers = {}, body, address = '127.0.0.1' }: Exchange,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: address,
        port,
        method,
        path: target,
        headers: { 'content-type': 'application/json', ...headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Uploads `totalBytes` of JSON-ish filler in chunks, as a client with a big body does, and stops writing as
 * soon as an answer arrives (as HTTP clients do when the server answers early). `chunked` leaves out
 * Content-Length. `holdOpen` never ends the body after `totalBytes`: the answer can then only come from a
 * server that decided before the body's end. Resolves with the answer and how much was sent; rejects with the
 * socket error otherwise.
 */
export function upload(
  port: number,
  totalBytes: number,
  {
    chunked = false,
    chunkBytes = 64 * 1024,
    headers = {},
    holdOpen = false,
  }: { chunked?: boolean; chunkBytes?: number; headers?: OutgoingHttpHeaders; holdOpen?: boolean } = {},
): Promise<Answer & { sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: {
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': totalBytes }),
          ...headers,
        },
        agent: false,
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            sent,
          });
          outgoing.destroy();
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    const filler = Buffer.alloc(chunkBytes, 'a');
    const writeMore = () => {
      while (!answered && sent < totalBytes) {
        const piece = filler.subarray(0, Math.min(chunkBytes, totalBytes - sent));
        sent += piece.length;
        if (!outgoing.write(piece)) return void outgoing.once('drain', writeMore);
      }
      if (!answered && !holdOpen) outgoing.end();
    };
    writeMore();
  });
}

/**
 * Uploads a chunked body as curl does: asks for 100 Continue, then writes all of `totalBytes` without reading,
 * and reads what the server sent only once it is done writing (or its writes failed). A server that closes a
 * socket with unread body in it sends a reset, which throws away an answer the client had not read yet: then
 * `received` is empty. Resolves with everything received after the 100 Continue.
 */
export function uploadLikeCurl(
  port: number,
  path: string,
  totalBytes: number,
  chunkBytes = 64 * 1024,
): Promise<{ received: string; writeError?: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let head = '';
    let received = '';
    let writeError: string | undefined;
    socket.on('error', (error: NodeJS.ErrnoException) => (writeError ??= error.code ?? error.message));
    socket.once('close', () => resolve({ received, writeError }));
    const afterContinue = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', afterContinue);
      if (!head.startsWith('HTTP/1.1 100')) return reject(new Error(`no 100 Continue first: ${head.slice(0, 80)}`));
      received = head.slice(end + 4);
      socket.pause();
      void writeBody().then(() => {
        socket.on('data', (more: Buffer) => (received += more.toString('latin1')));
        socket.resume();
      });
    };
    const chunk = Buffer.concat([
      Buffer.from(`${chunkBytes.toString(16)}\r\n`),
      Buffer.alloc(chunkBytes, 'a'),
      Buffer.from('\r\n'),
    ]);
    const writeBody = async () => {
      for (let sent = 0; sent < totalBytes && !socket.destroyed; sent += chunkBytes) {
        if (!socket.write(chunk))
          await new Promise((drained) => {
            socket.once('drain', drained);
            socket.once('close', drained);
          });
      }
      if (!socket.destroyed) socket.write('0\r\n\r\n');
    };
    socket.on('data', afterContinue);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n`,
    );
  });
}

/** A raw connection: what it received, and whether the server ended it. */
export class RawConnection {
  received = '';
  readonly closed: Promise<void>;
  private readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => (this.received += chunk.toString('latin1')));
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  get isClosed(): boolean {
    return this.socket.destroyed || this.socket.readyState === 'closed';
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Waits for the server to close it, or `patienceMs`; true when it was closed. */
  async closedWithin(patienceMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), patienceMs)));
    const result = await Promise.race([this.closed.then(() => true as const), gaveUp]);
    clearTimeout(timer);
    return result;
  }
}

/** A port nothing listens on now (bound, then released), for a router that must know its port in advance. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Checks `condition` until it holds or `attempts` checks 20 ms apart have failed; returns the last result. */
export async function eventually<T>(read: () => T, holds: (value: T) => boolean, attempts = 250): Promise<T> {
  let value = read();
  for (let i = 0; i < attempts && !holds(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = read();
  }
  return value;
}
