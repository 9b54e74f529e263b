import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ReusedConnectionCloser } from './reused-connection-closer';

/** One request as it reached the upstream: the body byte for byte. */
export interface UpstreamHit {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The slow model behind the structured-output router: an OpenAI API on 127.0.0.1 that records every request
 * and answers `POST /v1/chat/completions` and `POST /v1/responses` with `answer` as the JSON content, as a
 * server-sent event stream when the request says `stream: true`. `status` other than 200 answers an
 * OpenAI-style error instead.
 */
export class OpenAiUpstreamFake {
  readonly hits: UpstreamHit[] = [];
  /** The structured answer the slow model gives. */
  answer: Record<string, unknown> = {};
  status = 200;
  /** Pause between streamed chunks, so a test can see the stream arrive in pieces. */
  chunkDelayMs = 5;
  /** Extra headers on every answer (a test's hop-by-hop headers, say). */
  extraHeaders: Record<string, string> = {};
  /** Pads a `chat.completion` with this many bytes of filler (an answer too big to keep whole). */
  paddingBytes = 0;
  /** Sends JSON answers compressed, with the matching Content-Encoding (what an API behind a CDN does). */
  contentEncoding?: 'gzip' | 'br';
  /** `cut-body`: a JSON answer whose connection drops halfway through the body. */
  fault?: 'cut-body';
  /** Set its `mode` to close connections as the router reuses them (such requests are never recorded). */
  readonly reusedConnections = new ReusedConnectionCloser();
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  /** Starts on a free port; returns the base URL a client would use (`http://127.0.0.1:PORT/v1`). */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      if (this.reusedConnections.dropped(req)) return;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const hit = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        this.hits.push(hit);
        void this.reply(hit, res);
      });
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The last request's body parsed as JSON. */
  lastJson(): Record<string, unknown> {
    return JSON.parse(this.hits[this.hits.length - 1].body.toString('utf8')) as Record<string, unknown>;
  }

  private async reply(hit: UpstreamHit, res: ServerResponse): Promise<void> {
    const path = hit.url.split('?')[0];
    const json = (status: number, body: unknown) => this.json(res, status, body);
    if (this.status !== 200)
      return json(this.status, {
        error: { message: 'upstream says no', type: 'server_error', param: null, code: null },
      });
    let body: Record<string, unknown> = {};
    try {
      if (hit.body.length > 0) body = JSON.parse(hit.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return json(400, {
        error: {
          message: 'We could not parse the JSON body of your request.',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
    }
    const text = JSON.stringify(this.answer);
    const model = typeof body.model === 'string' ? body.model : 'gpt-slow';
    if (hit.method === 'POST' && path === '/v1/chat/completions') {
      if (body.stream === true) return this.stream(res, chatChunks(text, model));
      return json(200, {
        ...(this.paddingBytes > 0 && { padding: 'x'.repeat(this.paddingBytes) }),
        id: 'chatcmpl-upstream',
        object: 'chat.completion',
        created: 1_700_000_000,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
      });
    }
    if (hit.method === 'POST' && path === '/v1/responses') {
      const response = responseObject(text, model);
      if (body.stream === true)
        return this.stream(res, [
          { type: 'response.output_text.delta', delta: text },
          { type: 'response.completed', response },
        ]);
      return json(200, response);
    }
    if (hit.method === 'GET' && path === '/v1/models')
      return json(200, { object: 'list', data: [{ id: 'gpt-slow', object: 'model', created: 1, owned_by: 'fake' }] });
    return json(404, {
      error: {
        message: `no route ${hit.method} ${path}`,
        type: 'invalid_request_error',
        param: null,
        code: 'not_found',
      },
    });
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    const plain = Buffer.from(JSON.stringify(body));
    const compress = { gzip: gzipSync, br: brotliCompressSync };
    const text = this.contentEncoding ? compress[this.contentEncoding](plain) : plain;
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': text.length,
      'x-request-id': 'req_upstream',
      ...(this.contentEncoding && { 'content-encoding': this.contentEncoding }),
      ...this.extraHeaders,
    });
    if (this.fault !== 'cut-body') return void res.end(text);
    // Half the body, then the connection drops: the caller sees a cut answer.
    res.write(text.subarray(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
  }

  private async stream(res: ServerResponse, events: unknown[]): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...this.extraHeaders });
    for (const event of events) {
      res.write(`data: ${JSON.stringify(event)}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, this.chunkDelayMs));
    }
    res.end('data: [DONE]\n\n');
  }
}

/** The answer in three pieces, as a model streams it. */
function chatChunks(text: string, model: string): unknown[] {
  const third = Math.ceil(text.length / 3);
  const pieces = [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: 'chatcmpl-upstream',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...pieces.map((content) => chunk({ content }, null)),
    chunk({}, 'stop'),
  ];
}

function responseObject(text: string, model: string): Record<string, unknown> {
  return {
    id: 'resp_upstream',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model,
    output: [
      {
        type: 'message',
        id: 'msg_upstream',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: {
      input_tokens: 40,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 49,
    },
  };
}
