import { type FakeReply, type RecordedRequest } from './fake-engine';
import { type FakeChoiceQuestion, isObject, jevConfidence, SystemOneEngineFake } from './systemone-answer';

/** What the fake server is doing: serving, still loading its model, or serving a text model. */
export type LlamaServerMode = 'ready' | 'loading' | 'not-decision-model';

const LOADING = { code: 503, message: 'Loading model', type: 'unavailable_error' };

/**
 * llama.cpp `llama-server` with a native decision model (wire-contracts §1.4 D), the dialect the
 * `systemone` provider speaks (engines/systemone/serve.py copies it): `POST /v1/systemone` answering with
 * the model it loaded (never the one asked), keys in the order `model, answers, usage` and
 * `type, choice, probabilities, confidence`, `usage.output_tokens` 0, errors as
 * `{"error":{"code","message","type"}}` (422 for an invalid request or too many options, 401 for a wrong
 * key, 501 for a text model, 503 `Loading model`), and a public `GET /health`.
 */
export class LlamaServerFake extends SystemOneEngineFake {
  readonly name = 'systemone';
  protected readonly decimals = 4;
  /** llama-server's `--api-key`; /health stays public. */
  apiKey?: string;
  mode: LlamaServerMode = 'ready';
  /** The name it answers with: the first `--alias`, else one derived from the file. */
  loadedModel = 'd1-3B';
  /** The model type's option limit (255 for lfm2-d1 and laya GGUFs, 52 for openjev and nimble). */
  maxOptions = 255;

  constructor({ apiKey }: { apiKey?: string } = {}) {
    super();
    this.apiKey = apiKey;
  }

  protected refuse(request: RecordedRequest, questions: FakeChoiceQuestion[] | undefined): FakeReply | undefined {
    if (this.apiKey !== undefined && this.bearerOf(request) !== this.apiKey) {
      return llamaError(401, 'Invalid API Key', 'authentication_error');
    }
    if (this.mode === 'loading') return { status: 503, body: { error: LOADING } };
    if (this.mode === 'not-decision-model')
      return llamaError(501, 'This model is not a decision model', 'not_supported_error');
    const body = request.body;
    if (!isObject(body)) return llamaError(400, 'Failed to parse the request body as JSON', 'invalid_request_error');
    if (body.model !== undefined && typeof body.model !== 'string') return invalid('"model" must be a string');
    if (body.state === undefined || body.state === null) return invalid('"state" is required');
    if (!questions || questions.length === 0) return invalid('"questions" must be a non-empty object');
    for (const question of questions) {
      if (question.type !== 'choice') {
        const problem = this.typedProblem(question, body);
        if (problem) return invalid(problem);
        continue;
      }
      if (typeof question.instructions !== 'string' || question.instructions === '') {
        return invalid(`questions.${question.id}: "instructions" must be a non-empty string, object or array`);
      }
      if (question.criteria !== 'map' || question.options.length === 0) {
        return invalid(`questions.${question.id}: "criteria" must be an object mapping options to descriptions`);
      }
      if (question.options.length > this.maxOptions) {
        return invalid(
          `questions.${question.id}: "criteria" has ${question.options.length} options, at most ${this.maxOptions} are supported`,
        );
      }
    }
    return undefined;
  }

  protected choiceAnswer(choice: string, probabilities: Record<string, number>): Record<string, unknown> {
    return { type: 'choice', choice, probabilities, confidence: jevConfidence(probabilities) };
  }

  protected envelope(request: RecordedRequest, answers: Record<string, unknown>): FakeReply {
    return {
      status: 200,
      body: { model: this.loadedModel, answers, usage: { input_tokens: this.inputTokens(request), output_tokens: 0 } },
    };
  }

  protected otherRoute(request: RecordedRequest): FakeReply {
    if (request.method === 'GET' && (request.path === '/health' || request.path === '/v1/health')) {
      return this.mode === 'loading'
        ? { status: 503, body: { error: LOADING } }
        : { status: 200, body: { status: 'ok' } };
    }
    return llamaError(404, 'File Not Found', 'not_found_error');
  }

  protected errorBody(status: number): unknown {
    const errors: Record<number, [string, string]> = {
      401: ['Invalid API Key', 'authentication_error'],
      403: ['Forbidden', 'permission_error'],
      429: ['the decision queue is full, try again later', 'rate_limit_error'],
      500: ['Internal server error', 'server_error'],
      503: ['Loading model', 'unavailable_error'],
    };
    const [message, type] = errors[status] ?? [`HTTP ${status}`, 'server_error'];
    return { error: { code: status, message, type } };
  }
}

function llamaError(code: number, message: string, type: string): FakeReply {
  return { status: code, body: { error: { code, message, type } } };
}

function invalid(message: string): FakeReply {
  return llamaError(422, message, 'unprocessable_entity_error');
}
