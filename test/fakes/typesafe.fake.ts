import { type FakeReply, type RecordedRequest } from './fake-engine';
import { type FakeChoiceQuestion, isObject, jevConfidence, SystemOneEngineFake } from './systemone-answer';

const MODELS = ['jev-1.13.0', 'jev-1.14.0', 'jev-latest', 'jev-preview'];

/**
 * TypeSafe's hosted Jev API (wire-contracts §1.4 A): `POST /v1/systemone` answering with the versioned
 * model that served an alias, probabilities with 2 decimals (sums of 0.99 happen), Jev's confidence, an
 * `x-typesafe-request-id` header, FastAPI `{"detail": ...}` errors (403 for a missing Authorization header,
 * 401 for a wrong key, 400 for an unknown model, 422 for a missing one) and `GET /v1/models` behind the
 * same key. Started without `apiKey`, any bearer is accepted (a missing one still gets 403).
 */
export class TypeSafeFake extends SystemOneEngineFake {
  readonly name = 'typesafe';
  protected readonly decimals = 2;
  protected override readonly takesBoxes = true;
  apiKey?: string;
  /** What each alias resolves to; the versioned ids answer as themselves. */
  aliases: Record<string, string> = { 'jev-latest': 'jev-1.14.0', 'jev-preview': 'jev-1.15.0-preview' };
  private served = 0;

  constructor({ apiKey }: { apiKey?: string } = {}) {
    super();
    this.apiKey = apiKey;
  }

  private unauthorized(request: RecordedRequest): FakeReply | undefined {
    if (request.headers.authorization === undefined) return this.errorReply(403);
    if (this.apiKey !== undefined && this.bearerOf(request) !== this.apiKey) return this.errorReply(401);
    return undefined;
  }

  protected refuse(request: RecordedRequest, questions: FakeChoiceQuestion[] | undefined): FakeReply | undefined {
    const unauthorized = this.unauthorized(request);
    if (unauthorized) return unauthorized;
    const body = request.body;
    if (!isObject(body) || body.model === undefined) {
      return {
        status: 422,
        body: { detail: [{ loc: ['body', 'model'], msg: 'field required', type: 'value_error.missing' }] },
      };
    }
    if (typeof body.model !== 'string' || !MODELS.includes(body.model)) {
      return {
        status: 400,
        body: { detail: { error_type: 'api_usage_error', message: `Unknown model: ${String(body.model)}` } },
      };
    }
    if (!questions)
      return {
        status: 422,
        body: { detail: [{ loc: ['body', 'questions'], msg: 'field required', type: 'value_error.missing' }] },
      };
    for (const question of questions) {
      if (question.type !== 'choice') {
        const problem = this.typedProblem(question, body);
        if (problem) return { status: 400, body: { detail: problem } };
        continue;
      }
      if (question.criteria !== 'map' || question.options.length < 2) {
        return {
          status: 422,
          body: { detail: [{ loc: ['body', 'questions', question.id, 'criteria'], msg: 'value is not a valid dict' }] },
        };
      }
      if (question.options.length > 255)
        return { status: 400, body: { detail: 'Too many choices. Must have at most 255 choices.' } };
    }
    return undefined;
  }

  protected choiceAnswer(choice: string, probabilities: Record<string, number>): Record<string, unknown> {
    return { type: 'choice', choice, probabilities, confidence: jevConfidence(probabilities) };
  }

  protected envelope(request: RecordedRequest, answers: Record<string, unknown>): FakeReply {
    const asked = (request.body as { model: string }).model;
    const count = Object.keys(answers).length;
    return {
      status: 200,
      body: {
        model: this.aliases[asked] ?? asked,
        answers,
        usage: { input_tokens: this.inputTokens(request), output_tokens: 19 * count },
      },
      headers: { 'x-typesafe-request-id': `req_fake${String(++this.served).padStart(6, '0')}` },
    };
  }

  protected otherRoute(request: RecordedRequest): FakeReply {
    if (request.method !== 'GET' || request.path !== '/v1/models')
      return { status: 404, body: { detail: 'Not Found' } };
    return (
      this.unauthorized(request) ?? {
        status: 200,
        body: { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', owned_by: 'typesafe' })) },
      }
    );
  }

  private errorReply(status: number): FakeReply {
    return { status, body: this.errorBody(status) };
  }

  protected errorBody(status: number): unknown {
    const errors: Record<number, unknown> = {
      401: { error_type: 'authentication_error', message: 'Invalid API key.' },
      403: { error_type: 'authentication_error', message: 'Must supply an API key! Check your request and try again.' },
      429: { error_type: 'rate_limit_error', message: 'Rate limit exceeded.' },
      500: { error_type: 'api_error', message: 'Internal server error.' },
      503: { error_type: 'overloaded_error', message: 'The service is overloaded.' },
    };
    return { detail: errors[status] ?? `HTTP ${status}` };
  }
}
