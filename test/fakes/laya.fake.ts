import { type FakeReply, type RecordedRequest } from './fake-engine';
import { type FakeChoiceQuestion, isObject, round, SystemOneEngineFake } from './systemone-answer';

/** Names that pin a checkpoint (laya docs/http-api.md "Model resolution"); anything else auto-routes. */
const PINNED: Record<string, string> = {
  english: 'english',
  multilingual: 'multilingual',
  'typed-decisions': 'typed-decisions',
  'convaiinnovations/laya-multilingual': 'multilingual',
  'convaiinnovations/laya-typed-decisions': 'typed-decisions',
};

export interface LayaFakeOptions {
  /** laya-serve's LAYA_API_KEY: decisions need it as a bearer, and /health shows details only with it. */
  apiKey?: string;
  /** LAYA_JEV_STRICT=1: no `routing`, no `answer_confidence`/`action`, bare `usage`. */
  strict?: boolean;
}

/**
 * laya-serve (wire-contracts §1.4 B): `POST /v1/systemone` answering as `model: "laya-rl-agent"` with the
 * checkpoint that answered in `routing.model`, `answer_confidence` next to Laya's entropy `confidence`,
 * FastAPI `{"detail": ...}` errors (400 for a missing or null state, 401 for a wrong bearer, 413 over its
 * limits), and `GET /health` in the current docs' shape, or a bare `{"status":"ok"}` to a caller without
 * the key.
 */
export class LayaFake extends SystemOneEngineFake {
  readonly name = 'laya';
  protected readonly decimals = 4;
  protected override readonly maxLevels = 32;
  apiKey?: string;
  strict: boolean;
  /** The checkpoint every request is routed to, whatever it asked (to play Laya's silent auto-routing). */
  routeTo?: string;
  /** Where an absent, empty or unknown `model` is auto-routed. */
  autoRoute = 'english';
  /** What /health lists as loaded. */
  loaded: string[] = ['typed-decisions'];

  constructor({ apiKey, strict = false }: LayaFakeOptions = {}) {
    super();
    this.apiKey = apiKey;
    this.strict = strict;
  }

  private authorized(request: RecordedRequest): boolean {
    return this.apiKey === undefined || this.bearerOf(request) === this.apiKey;
  }

  protected refuse(request: RecordedRequest, questions: FakeChoiceQuestion[] | undefined): FakeReply | undefined {
    const body = request.body;
    if (!this.authorized(request)) return detail(401, 'invalid or missing bearer token');
    if (typeof body === 'string') return detail(400, 'request body must be valid JSON');
    if (!isObject(body) || !('questions' in body))
      return detail(400, "request body must be an object with a 'questions' field");
    if (body.state === undefined || body.state === null) return detail(400, "'state' is required");
    if (!questions) return detail(400, "'questions' must be an object");
    if (questions.length > 64) return detail(413, `too many questions (${questions.length} > 64)`);
    for (const question of questions) {
      if (question.type !== 'choice') {
        const problem = this.typedProblem(question, body);
        if (problem) return detail(422, problem);
        continue;
      }
      if (question.criteria === 'invalid' || question.options.length < 2) {
        return detail(422, `question '${question.id}': 'criteria' must list at least two options`);
      }
      if (question.options.length > 100) {
        return detail(413, `too many choice options for '${question.id}' (${question.options.length} > 100)`);
      }
    }
    return undefined;
  }

  protected choiceAnswer(choice: string, probabilities: Record<string, number>): Record<string, unknown> {
    const answer: Record<string, unknown> = {
      type: 'choice',
      choice,
      probabilities,
      confidence: entropyConfidence(probabilities),
    };
    if (!this.strict)
      Object.assign(answer, { answer_confidence: probabilities[choice], action: { act_probability: 1.0 } });
    return answer;
  }

  protected envelope(request: RecordedRequest, answers: Record<string, unknown>): FakeReply {
    const usage = { input_tokens: this.inputTokens(request), output_tokens: 0 };
    if (this.strict) return { status: 200, body: { model: 'laya-rl-agent', answers, usage } };
    const requested = isObject(request.body) ? request.body.model : undefined;
    const pinned = typeof requested === 'string' && Object.hasOwn(PINNED, requested) ? PINNED[requested] : undefined;
    const checkpoint = this.routeTo ?? pinned ?? this.autoRoute;
    return {
      status: 200,
      body: {
        model: 'laya-rl-agent',
        answers,
        usage: { ...usage, truncated: false, truncated_questions: [] },
        routing: {
          model: checkpoint,
          repo: `convaiinnovations/laya-${checkpoint}`,
          reason: pinned && !this.routeTo ? 'model requested' : 'auto-routed',
          detection: null,
          workflow: null,
        },
      },
      headers: { 'server-timing': 'inference;dur=12.5', 'x-inference-time-ms': '12.5' },
    };
  }

  protected otherRoute(request: RecordedRequest): FakeReply {
    if (request.method !== 'GET' || request.path !== '/health') return detail(404, 'Not Found');
    // laya-serve never answers 401 here: without the key it only says it is up.
    if (!this.authorized(request)) return { status: 200, body: { status: 'ok' } };
    return {
      status: 200,
      body: {
        status: 'ok',
        loaded: this.loaded,
        revisions: Object.fromEntries(this.loaded.map((name) => [name, '7b928d8c0ffee'])),
        device: 'cpu',
        device_is_preference: false,
        checkpoint_devices: Object.fromEntries(this.loaded.map((name) => [name, 'cpu'])),
        cpu_fallbacks: Object.fromEntries(this.loaded.map((name) => [name, { count: 0, last_reason: null }])),
      },
    };
  }

  protected errorBody(status: number): unknown {
    const details: Record<number, string> = {
      401: 'invalid or missing bearer token',
      500: 'inference failed',
      503: 'server busy, try again later',
    };
    return { detail: details[status] ?? `HTTP ${status}` };
  }

  protected override wrongShape(): unknown {
    return { model: 'laya-rl-agent', results: [], total_usage: { input_tokens: 3, output_tokens: 0 } };
  }
}

function detail(status: number, text: string): FakeReply {
  return { status, body: { detail: text } };
}

/** Laya's own `confidence`: 1 − H(p)/log k. */
function entropyConfidence(probabilities: Record<string, number>): number {
  const values = Object.values(probabilities);
  const entropy = -values.reduce((sum, p) => (p > 0 ? sum + p * Math.log(p) : sum), 0);
  return round(Math.max(0, 1 - entropy / Math.log(values.length)), 4);
}
