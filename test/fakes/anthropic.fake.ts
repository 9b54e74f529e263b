import { FakeEngine, type FakeReply, type RecordedRequest } from './fake-engine';

/** How the fake's model behaves on `POST /v1/messages`, beyond the shared faults. */
export type AnthropicMode =
  | 'normal'
  /** stop_reason max_tokens with the tool call cut off (its input lacks `confidence`). */
  | 'max-tokens'
  /** ranks a name the tool's enum does not have. */
  | 'outside-enum'
  /** reports a confidence above 1. */
  | 'confidence-out-of-range'
  /** answers in text without calling the tool. */
  | 'no-tool-use'
  /** stop_reason refusal: the model declines. */
  | 'refusal'
  /** 529 overloaded_error. */
  | 'overloaded';

const ERROR_TYPES: Record<number, [type: string, message: string]> = {
  400: ['invalid_request_error', 'messages: field required'],
  401: ['authentication_error', 'invalid x-api-key'],
  402: ['billing_error', 'Your credit balance is too low to access the Anthropic API.'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not found'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  500: ['api_error', 'Internal server error'],
  529: ['overloaded_error', 'Overloaded'],
};

const VERSION = '2023-06-01';

/**
 * A fake Anthropic API (wire-contracts section 3): `POST /v1/messages` answers through the forced tool
 * call with `ranking` (default: the first name of the tool's enum) and `confidence` (default 0.8), and
 * `GET /v1/models/{id}` knows `models`. Started with `apiKey`, it answers 401 authentication_error to any
 * other `x-api-key`; like the API, it answers 400 without `anthropic-version: 2023-06-01`.
 */
export class AnthropicFake extends FakeEngine {
  readonly name = 'anthropic';
  protected readonly decisionPaths = ['/v1/messages'];
  mode: AnthropicMode = 'normal';
  ranking?: string[];
  /** undefined leaves `confidence` out of the tool call. */
  confidence: number | undefined = 0.8;
  models: Record<string, string> = { 'claude-haiku-5-5': 'Claude Haiku 5.5' };
  private requestCount = 0;

  constructor(readonly apiKey?: string) {
    super();
  }

  protected answer(request: RecordedRequest): FakeReply {
    const { headers } = request;
    if (headers['anthropic-version'] !== VERSION) return this.error(400, 'anthropic-version: header is required');
    if (this.apiKey !== undefined && headers['x-api-key'] !== this.apiKey) return this.error(401);
    if (request.method === 'POST' && request.path === '/v1/messages') return this.message(request.body);
    const model = /^\/v1\/models\/([^/]+)$/.exec(request.path)?.[1];
    if (request.method === 'GET' && model !== undefined) return this.model(decodeURIComponent(model));
    return this.error(404);
  }

  protected errorBody(status: number): unknown {
    const [type, message] = ERROR_TYPES[status] ?? ERROR_TYPES[500];
    return {
      type: 'error',
      error: { type, message },
      request_id: `req_fake${String(this.requestCount++).padStart(6, '0')}`,
    };
  }

  private error(status: number, message?: string): FakeReply {
    const body = this.errorBody(status) as { error: { message: string } };
    if (message) body.error.message = message;
    return { status, body, headers: { 'request-id': 'req_fake' } };
  }

  private model(id: string): FakeReply {
    if (!Object.hasOwn(this.models, id)) return this.error(404, `model: ${id}`);
    return {
      status: 200,
      body: {
        type: 'model',
        id,
        display_name: this.models[id],
        created_at: '2026-05-01T00:00:00Z',
        max_input_tokens: 0,
        max_tokens: 0,
      },
    };
  }

  private message(body: unknown): FakeReply {
    const request = body as MessagesBody;
    if (
      typeof request?.model !== 'string' ||
      typeof request.max_tokens !== 'number' ||
      !Array.isArray(request.messages)
    ) {
      return this.error(400, 'model, max_tokens and messages are required');
    }
    if (!Object.hasOwn(this.models, request.model)) return this.error(404, `model: ${request.model}`);
    if (request.thinking !== undefined && request.tool_choice?.type === 'tool') {
      return this.error(400, 'Thinking may not be enabled when tool_choice forces tool use.');
    }
    const tool = request.tools?.find((candidate) => candidate.name === request.tool_choice?.name);
    const names = tool?.input_schema?.properties?.ranking?.items?.enum ?? [];
    if (this.mode === 'overloaded') return this.error(529);
    if (this.mode === 'refusal') return this.reply(request.model, [], 'refusal');
    if (this.mode === 'no-tool-use' || !tool) {
      return this.reply(
        request.model,
        [{ type: 'text', text: `I would pick ${names[0] ?? 'the first one'}.` }],
        'end_turn',
      );
    }
    const ranking = this.mode === 'outside-enum' ? ['merge anyway'] : (this.ranking ?? names.slice(0, 1));
    const confidence = this.mode === 'confidence-out-of-range' ? 1.7 : this.confidence;
    const input = this.mode === 'max-tokens' ? { ranking } : { ranking, confidence };
    const call = { type: 'tool_use', id: 'toolu_fake01A09q90qw90lq917835', name: tool.name, input };
    return this.reply(request.model, [call], this.mode === 'max-tokens' ? 'max_tokens' : 'tool_use');
  }

  private reply(model: string, content: unknown[], stopReason: string): FakeReply {
    return {
      status: 200,
      headers: { 'request-id': 'req_fake' },
      body: {
        id: 'msg_fake01XFDUDYJgAACzvnptvVoYEL',
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: 412, output_tokens: 61, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    };
  }
}

interface MessagesBody {
  model?: unknown;
  max_tokens?: unknown;
  messages?: unknown;
  thinking?: unknown;
  tool_choice?: { type?: string; name?: string };
  tools?: { name: string; input_schema?: { properties?: { ranking?: { items?: { enum?: string[] } } } } }[];
}
