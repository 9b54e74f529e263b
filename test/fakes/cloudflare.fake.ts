import { type FakeReply, type RecordedRequest } from './fake-engine';
import { type FakeChoiceQuestion, isObject, SystemOneEngineFake } from './systemone-answer';

const MODELS = ['clef', 'clef-flash'];

/**
 * How the fake wraps a System One reply:
 * - `envelope`: `{result, success: true, errors: [], messages: []}`, as Workers AI does;
 * - `unwrapped`: the bare System One body (a body without `success`, which clients accept);
 * - `success-false`: HTTP 200 with `success: false` and the example error 5006 "Bad input".
 */
export type CloudflareReplyStyle = 'envelope' | 'unwrapped' | 'success-false';

/**
 * Cloudflare Workers AI's Clef (wire-contracts §1.4 E): `POST /client/v4/accounts/{account}/ai/run/@cf/
 * cloudflare/{clef|clef-flash}` for its one account (URL-encoded in the path, as clients send it), the short
 * model name in the body (it must match the route), 1-64 questions, 2-255 options, probabilities with 4
 * decimals, no `confidence` (the wire example has none), a `cf-ray` header, and Cloudflare's envelope
 * around both answers and errors. No health route: every other path is Cloudflare's 7003 "Could not route".
 * Error codes other than 5006 and 7003 are illustrative: Clef's own are not documented.
 * Started without `apiKey`, any bearer is accepted (a missing one still gets 401).
 */
export class CloudflareFake extends SystemOneEngineFake {
  readonly name = 'cloudflare';
  protected readonly decimals = 4;
  protected override readonly decisionPaths: readonly string[];
  apiKey?: string;
  readonly accountId: string;
  replyStyle: CloudflareReplyStyle = 'envelope';
  private served = 0;

  constructor({
    apiKey,
    accountId = '0123456789abcdef0123456789abcdef',
  }: { apiKey?: string; accountId?: string } = {}) {
    super();
    this.apiKey = apiKey;
    this.accountId = accountId;
    this.decisionPaths = MODELS.map((model) => this.runPath(model));
  }

  /** The route of one model for this fake's account. */
  runPath(model: string): string {
    return `/client/v4/accounts/${encodeURIComponent(this.accountId)}/ai/run/@cf/cloudflare/${model}`;
  }

  protected refuse(request: RecordedRequest, questions: FakeChoiceQuestion[] | undefined): FakeReply | undefined {
    if (request.headers.authorization === undefined)
      return this.errorReply(401, 10001, 'Unable to authenticate request');
    if (this.apiKey !== undefined && this.bearerOf(request) !== this.apiKey)
      return this.errorReply(401, 10000, 'Authentication error');
    const routeModel = request.path.slice(request.path.lastIndexOf('/') + 1);
    const body = request.body;
    if (!isObject(body) || body.model !== routeModel)
      return this.badInput(`"model" must be "${routeModel}", the model of the route`);
    if (!questions || questions.length < 1 || questions.length > 64)
      return this.badInput('"questions" must hold 1 to 64 questions');
    for (const question of questions) {
      if (question.type !== 'choice') {
        const problem = this.typedProblem(question, body);
        if (problem) return this.badInput(problem);
        continue;
      }
      if (question.criteria !== 'map' || question.options.length < 2 || question.options.length > 255) {
        return this.badInput(`questions.${question.id}.criteria must map 2 to 255 options to descriptions`);
      }
    }
    return undefined;
  }

  protected choiceAnswer(choice: string, probabilities: Record<string, number>): Record<string, unknown> {
    return { type: 'choice', choice, probabilities };
  }

  protected envelope(request: RecordedRequest, answers: Record<string, unknown>): FakeReply {
    const model = (request.body as { model: string }).model;
    const result = { model, answers, usage: { input_tokens: this.inputTokens(request), output_tokens: 0 } };
    const headers = { 'cf-ray': `${(++this.served).toString(16).padStart(16, '0')}-SJC` };
    if (this.replyStyle === 'unwrapped') return { status: 200, body: result, headers };
    if (this.replyStyle === 'success-false') return { ...this.badInput('Bad input'), status: 200, headers };
    return { status: 200, body: { result, success: true, errors: [], messages: [] }, headers };
  }

  protected override wrongShape(): unknown {
    return { result: { unexpected: 'shape', answers: 'none' }, success: true, errors: [], messages: [] };
  }

  protected otherRoute(request: RecordedRequest): FakeReply {
    return this.errorReply(404, 7003, `Could not route to ${request.path}, perhaps your object identifier is invalid?`);
  }

  protected errorBody(status: number): unknown {
    const errors: Record<number, [number, string]> = {
      401: [10000, 'Authentication error'],
      403: [10000, 'Authentication error: this token may not run Workers AI on this account'],
      429: [3040, 'Capacity temporarily exceeded, please try again.'],
      500: [3043, 'Internal server error'],
      503: [3040, 'Service temporarily unavailable'],
    };
    const [code, message] = errors[status] ?? [1000, `HTTP ${status}`];
    return failure(code, message);
  }

  private errorReply(status: number, code: number, message: string): FakeReply {
    return { status, body: failure(code, message) };
  }

  private badInput(message: string): FakeReply {
    return this.errorReply(400, 5006, message);
  }
}

function failure(code: number, message: string): Record<string, unknown> {
  return { result: null, success: false, errors: [{ code, message }], messages: [] };
}
