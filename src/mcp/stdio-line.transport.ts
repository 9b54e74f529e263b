import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { Readable, Writable } from 'node:stream';
import { TurnCork } from '../common/turn-cork';
import { describeId, type ErrorReply } from './envelope';
import { guardStdin, MAX_LINE_BYTES } from './stdin-guard';
import type { DrainableTransport } from './gated.transport';

export interface StdioLineOptions {
  warn: (line: string) => void;
  maxLineBytes?: number;
}

/**
 * MCP over stdio, one JSON-RPC message a line, for the SDK's stdio entry (`serveStdio(factory, { transport })`).
 * Unlike the SDK's StdioServerTransport, each line is parsed once and checked by guardStdin (which answers
 * what the SDK would drop), and the end of stdin only ends the input: answers can still be written until
 * the transport is closed or stdout fails, so the answers in flight reach the client (see GatedTransport).
 */
export class StdioLineTransport implements DrainableTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private outputGone = false;
  private closed = false;
  private ended = false;
  private drained?: Promise<void>;
  /** Answers finished in one turn of the event loop leave in one write. */
  private readonly cork: TurnCork;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: StdioLineOptions,
  ) {
    this.cork = new TurnCork(output);
  }

  get writable(): boolean {
    return !this.outputGone && !this.closed;
  }

  async start(): Promise<void> {
    const { warn } = this.options;
    // Error replies carry `"id": null` (JSON-RPC's rule for an
    // unreadable message), which the SDK's message type cannot express.
    const reply = (message: ErrorReply) => {
      warn(`answered ${describeId(message.id)} with ${message.error.code}: ${message.error.message}`);
      void this.write(message);
    };
    const messages = guardStdin(this.input, reply, this.options.maxLineBytes ?? MAX_LINE_BYTES, warn);
    messages.on('data', (message: JSONRPCMessage) => this.onmessage?.(message));
    messages.once('end', () => this.inputEnded());
    this.input.once('close', () => this.inputEnded());
    // A client that closes our stdout can read nothing more: stop quietly instead of dying on EPIPE.
    this.output.on('error', (error: NodeJS.ErrnoException) => {
      if (this.outputGone) return;
      this.outputGone = true;
      warn(`stdout is closed (${error.code ?? error.message}): the client has gone, stopping`);
      this.input.destroy();
      this.inputEnded();
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.writable) return Promise.reject(new Error('stdout is closed'));
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.pause();
    this.inputEnded();
  }

  private write(message: unknown): Promise<void> {
    if (!this.writable) return Promise.resolve();
    this.cork.hold();
    // The line is queued either way; waiting for 'drain' only paces a client that reads slowly.
    if (this.output.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    return (this.drained ??= this.untilDrained());
  }

  /** One wait for every answer written while stdout is full (a batch can pass the buffer's mark by itself). */
  private untilDrained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.output.off('drain', done);
        this.output.off('close', done);
        this.drained = undefined;
        resolve();
      };
      this.output.on('drain', done);
      this.output.on('close', done);
    });
  }

  /** The input is over (stdin ended or closed, stdout gone, or closed here): the gate decides what follows. */
  private inputEnded(): void {
    if (this.ended) return;
    this.ended = true;
    this.onclose?.();
  }
}
