import { type FakeReply, type RecordedRequest } from './fake-engine';
import { type FakeChoiceQuestion, isObject, round, SystemOneEngineFake } from './systemone-answer';

/**
 * `von serve` (wire-contracts §1.4 C): `POST /v1/systemone` stamped with the version it served
 * (`von-1.3.0`, whatever was asked), choice `confidence` as the margin P1 − P2, non-zero `output_tokens`,
 * FastAPI-style `{"detail": ...}` errors (the SDK's own fake), a bearer check when started with a key, and
 * `GET /health` answering `{"status":"ok"}` (undocumented upstream). Choice criteria must be a map, as in
 * Von's types.
 */
export class VonFake extends SystemOneEngineFake {
  readonly name = 'von';
  protected readonly decimals = 4;
  /** Von's VON_API_KEY. */
  apiKey?: string;
  served = 'von-1.3.0';

  constructor({ apiKey }: { apiKey?: string } = {}) {
    super();
    this.apiKey = apiKey;
  }

  protected refuse(request: RecordedRequest, questions: FakeChoiceQuestion[] | undefined): FakeReply | undefined {
    if (this.apiKey !== undefined && this.bearerOf(request) !== this.apiKey)
      return detail(401, 'invalid or missing API key');
    if (!isObject(request.body) || !questions) return detail(422, 'body must be an object with a questions object');
    for (const question of questions) {
      if (question.type !== 'choice') {
        const problem = this.typedProblem(question, request.body);
        if (problem) return detail(422, problem);
        continue;
      }
      if (question.criteria !== 'map' || question.options.length < 2) {
        return detail(422, `questions.${question.id}.criteria: must map at least two option keys to descriptions`);
      }
    }
    return undefined;
  }

  /** Von's `noul` is the value committed by its band rule; `noul_raw` is the calibrated P(true) to gate on. */
  protected override typedAnswer(question: FakeChoiceQuestion): Record<string, unknown> {
    if (question.type !== 'noul') return super.typedAnswer(question);
    return { type: 'noul', noul: this.noulTrue >= 0.5 ? 0.9412 : 0.0588, noul_raw: this.noulTrue };
  }

  protected choiceAnswer(choice: string, probabilities: Record<string, number>): Record<string, unknown> {
    const [first, second = 0] = Object.values(probabilities).sort((a, b) => b - a);
    return { type: 'choice', choice, confidence: round(first - second, 4), probabilities };
  }

  protected envelope(request: RecordedRequest, answers: Record<string, unknown>): FakeReply {
    const usage = { input_tokens: this.inputTokens(request), output_tokens: 2 * Object.keys(answers).length };
    return { status: 200, body: { model: this.served, answers, usage } };
  }

  protected otherRoute(request: RecordedRequest): FakeReply {
    if (request.method === 'GET' && request.path === '/health') return { status: 200, body: { status: 'ok' } };
    return detail(404, 'Not Found');
  }

  protected errorBody(status: number): unknown {
    return { detail: status === 401 ? 'invalid or missing API key' : status === 500 ? 'boom' : `HTTP ${status}` };
  }
}

function detail(status: number, text: string): FakeReply {
  return { status, body: { detail: text } };
}
