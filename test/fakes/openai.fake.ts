import { type FakeReply, type RecordedRequest } from './fake-engine';
import { LetterChatFake } from './letter-chat.fake';

/**
 * An OpenAI-compatible server (wire-contracts §5, vLLM-flavoured): `POST /v1/chat/completions` with
 * `choices[0].logprobs.content`, `GET /v1/models`. Started with `apiKey`, every route wants
 * `Authorization: Bearer <apiKey>` and answers 401 otherwise. Errors are `{"error": {...}}`, or vLLM's older
 * `{"object": "error", ...}` with `errorStyle = "object"`. A 401 body quotes the key it was given, as
 * hosted APIs do, so tests see that the gateway never passes it on.
 */
export class OpenAiFake extends LetterChatFake {
  readonly name = 'openai';
  protected readonly decisionPaths = ['/v1/chat/completions'] as const;
  models = ['qwen3-4b'];
  errorStyle: 'error' | 'object' = 'error';
  /** LM Studio's way: `logprobs: null` rather than no field at all. */
  nullLogprobs = false;

  /** The bearer token every route requires; none when started without a (non-empty) key. */
  readonly apiKey: string | undefined;

  constructor(apiKey?: string) {
    super();
    this.apiKey = apiKey || undefined;
  }

  protected answer(request: RecordedRequest): FakeReply {
    if (this.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.apiKey}`) {
      return { status: 401, body: this.errorBody(401) };
    }
    if (request.method === 'GET' && request.path === '/v1/models') {
      return {
        status: 200,
        body: {
          object: 'list',
          data: this.models.map((id) => ({ id, object: 'model', created: 1767919000, owned_by: 'vllm' })),
        },
      };
    }
    if (request.method === 'POST' && request.path === '/v1/chat/completions') return this.completion(request);
    return { status: 404, body: this.error(404, 'NotFoundError', `Not Found: ${request.path}`) };
  }

  protected errorBody(status: number): unknown {
    if (status === 401) {
      const presented = String(this.requests.at(-1)?.headers.authorization ?? '').replace(/^Bearer /, '');
      return this.error(401, 'authentication_error', `Incorrect API key provided: ${presented || '(none)'}`);
    }
    const kinds: Record<number, [string, string]> = {
      403: ['permission_error', 'Forbidden'],
      429: ['rate_limit_error', 'Too many requests, please retry later'],
      500: ['InternalServerError', 'CUDA error: out of memory'],
      503: ['ServiceUnavailableError', 'The engine is overloaded'],
    };
    const [type, message] = kinds[status] ?? ['BadRequestError', `status ${status}`];
    return this.error(status, type, message);
  }

  private error(code: number, type: string, message: string): unknown {
    if (this.errorStyle === 'object') return { object: 'error', message, type, param: null, code };
    return { error: { message, type, param: null, code } };
  }

  private completion(request: RecordedRequest): FakeReply {
    const model = this.chatModel(request);
    if (!this.models.includes(model))
      return { status: 404, body: this.error(404, 'NotFoundError', `The model \`${model}\` does not exist.`) };
    const logprobs = this.withoutLogprobs
      ? this.nullLogprobs
        ? { logprobs: null }
        : {}
      : { logprobs: { content: [this.generated(request)] } };
    return {
      status: 200,
      body: {
        id: 'chatcmpl-xgtB09W0CAf7hbpo0k0RtvshoSMHRha1',
        object: 'chat.completion',
        created: 1767919342,
        model,
        choices: [
          { index: 0, finish_reason: 'length', message: { role: 'assistant', content: this.content() }, ...logprobs },
        ],
        usage: { prompt_tokens: 58, completion_tokens: 1, total_tokens: 59 },
      },
    };
  }
}
