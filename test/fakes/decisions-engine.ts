import { FakeEngine, type FakeReply, type RecordedRequest } from './fake-engine';

/** Which host of wire-contracts §10.3 the fake plays. */
export type DecisionsHost = 'openai' | 'fireworks';

/** What a host takes, by host: its route, its most choices per question, whether it reads images. */
const HOSTS: Record<DecisionsHost, { prefix: string; maxChoices: number; images: boolean }> = {
  openai: { prefix: '/v1', maxChoices: 255, images: true },
  fireworks: { prefix: '/inference/v1', maxChoices: 208, images: false },
};

/** How the answers may come back wrong as a whole: one missing, or in another order than the questions. */
export type AnswerOrder = 'as-asked' | 'drop-last' | 'reversed';

type Question = Record<string, unknown> & { type?: unknown; name?: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * OpenAI's Decisions API (wire-contracts §10; `openai` 7.55 `resources/decisions.d.ts`): `POST /v1/decisions`
 * answering `{model, answers, usage}` with the answers in question order, each named as its question was;
 * OpenAI's error envelope `{error: {message, type, param, code}}` (400 for a request it refuses, 401 for a
 * missing or wrong key when started with `apiKey`, 404 for an unknown model, 429 with Retry-After, 500);
 * `GET /v1/models` behind the same key. As `fireworks` it serves at `/inference/v1/decisions`, refuses more
 * than 208 choices and any `input_image` with 400, as Fireworks documents. Tests steer each question by its
 * name, make some refuse, or send the answers short or out of order; every request is recorded.
 */
export class DecisionsEngineFake extends FakeEngine {
  readonly name = 'openai-decisions';
  readonly host: DecisionsHost;
  apiKey?: string;
  /** The models served; another is 404 `model_not_found` (400 on Fireworks). */
  models = ['gpt-6-luna'];
  /** The value a choice question picks, by question name (default: the first). */
  pick: Record<string, string> = {};
  /** The picked value's probability; the rest share what is left. */
  choiceTop = 0.9;
  /** P(true) of a predicate, by question name (default `probabilityDefault`). */
  probabilityOf: Record<string, number> = {};
  probabilityDefault = 0.9;
  /** The likeliest level of a score question, by name (default 0), with probability `scoreTop`. */
  levelOf: Record<string, number> = {};
  scoreTop = 0.85;
  /** Question names answered with a `refusal`. */
  refuse: string[] = [];
  order: AnswerOrder = 'as-asked';
  protected readonly decisionPaths: readonly string[];

  constructor({ apiKey, host = 'openai' }: { apiKey?: string; host?: DecisionsHost } = {}) {
    super();
    this.apiKey = apiKey;
    this.host = host;
    this.decisionPaths = [this.route];
  }

  /** Where decisions are posted on this host. */
  get route(): string {
    return `${HOSTS[this.host].prefix}/decisions`;
  }

  /** The last decision request: its body and headers, to check what was sent and where the key went. */
  get last(): RecordedRequest | undefined {
    return this.requestsTo(this.route).at(-1);
  }

  protected answer(request: RecordedRequest): FakeReply {
    if (request.path === `${HOSTS[this.host].prefix}/models` && request.method === 'GET') {
      return this.unauthorized(request) ?? { status: 200, body: { object: 'list', data: this.modelList() } };
    }
    if (request.path !== this.route || request.method !== 'POST') return this.error(404, 'Not found', 'not_found');
    const refused = this.unauthorized(request) ?? this.refusal(request.body);
    if (refused) return refused;
    const body = request.body as { model: string; questions: Question[] };
    const answers = body.questions.map((question) => this.answerTo(question));
    const count = answers.length;
    return {
      status: 200,
      body: {
        model: body.model,
        answers:
          this.order === 'reversed' ? answers.reverse() : answers.slice(0, this.order === 'drop-last' ? -1 : count),
        usage: {
          input_tokens: 100 + 20 * count,
          input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
          output_tokens: 0,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 100 + 20 * count,
        },
      },
    };
  }

  private modelList() {
    return this.models.map((id) => ({ id, object: 'model', owned_by: this.host }));
  }

  private unauthorized(request: RecordedRequest): FakeReply | undefined {
    if (this.apiKey === undefined || this.credentialOf(request) === this.apiKey) return undefined;
    return this.error(401, 'Incorrect API key provided.', 'invalid_api_key', 'authentication_error');
  }

  /** The host's 400 (or 404) for a request it does not take. */
  private refusal(body: unknown): FakeReply | undefined {
    const invalid = (message: string, param: string) => this.error(400, message, null, 'invalid_request_error', param);
    if (!isObject(body)) return invalid('The body must be a JSON object.', '');
    if (typeof body.model !== 'string') return invalid("Missing required parameter: 'model'.", 'model');
    if (!this.models.includes(body.model)) {
      const message = `The model '${body.model}' does not exist or you do not have access to it.`;
      return this.host === 'fireworks'
        ? invalid(message, 'model')
        : this.error(404, message, 'model_not_found', 'invalid_request_error');
    }
    if (typeof body.input !== 'string' && !Array.isArray(body.input))
      return invalid("Missing required parameter: 'input'.", 'input');
    if (!HOSTS[this.host].images && JSON.stringify(body.input).includes('"input_image"'))
      return invalid('Image inputs are not supported for this model.', 'input');
    const { questions } = body;
    if (!Array.isArray(questions) || questions.length < 1 || questions.length > 400)
      return invalid('questions must hold 1 to 400 questions.', 'questions');
    for (const [index, question] of (questions as unknown[]).entries()) {
      const problem = this.questionProblem(question);
      if (problem) return invalid(problem, `questions[${index}]`);
    }
    return undefined;
  }

  private questionProblem(question: unknown): string | undefined {
    if (!isObject(question) || typeof question.instructions !== 'string' || question.instructions === '')
      return 'each question needs instructions';
    if (question.type === 'predicate') return undefined;
    if (question.type === 'score')
      return Array.isArray(question.levels) && question.levels.length >= 2 ? undefined : 'a score needs 2+ levels';
    if (question.type !== 'choice') return `unknown question type ${JSON.stringify(question.type)}`;
    const choices = question.choices;
    const max = HOSTS[this.host].maxChoices;
    if (!Array.isArray(choices) || choices.length < 2 || choices.length > max)
      return `choices must hold between 2 and ${max} choices.`;
    const values = (choices as { value?: unknown }[]).map((choice) => JSON.stringify(choice.value));
    return new Set(values).size === values.length ? undefined : 'Each choice must be unique.';
  }

  private answerTo(question: Question): Record<string, unknown> {
    const name = typeof question.name === 'string' ? question.name : null;
    if (name !== null && this.refuse.includes(name)) return { type: 'refusal', name };
    if (question.type === 'predicate')
      return { type: 'predicate', name, probability: this.probabilityOf[name ?? ''] ?? this.probabilityDefault };
    if (question.type === 'score') return this.score(name, question.levels as { label: string }[]);
    return this.choice(
      name,
      (question.choices as { value: string | boolean }[]).map((choice) => choice.value),
    );
  }

  private choice(name: string | null, values: (string | boolean)[]): Record<string, unknown> {
    const picked = this.pick[name ?? ''] ?? values[0];
    const rest = round((1 - this.choiceTop) / Math.max(1, values.length - 1));
    const probabilities = values.map((value) => ({ value, probability: value === picked ? this.choiceTop : rest }));
    return { type: 'choice', name, choice: picked, confidence: this.choiceTop, probabilities };
  }

  private score(name: string | null, levels: { label: string }[]): Record<string, unknown> {
    const top = this.levelOf[name ?? ''] ?? 0;
    const rest = round((1 - this.scoreTop) / Math.max(1, levels.length - 1));
    const probabilities = levels.map(({ label }, value) => ({
      value,
      label,
      probability: value === top ? this.scoreTop : rest,
    }));
    const score = round(probabilities.reduce((sum, { value, probability }) => sum + value * probability, 0));
    return { type: 'score', name, score, confidence: this.scoreTop, probabilities };
  }

  private error(status: number, message: string, code: string | null, type = 'invalid_request_error', param = '') {
    return { status, body: { error: { message, type, param: param || null, code } } };
  }

  protected errorBody(status: number): unknown {
    const errors: Record<number, [string, string, string | null]> = {
      401: ['Incorrect API key provided.', 'authentication_error', 'invalid_api_key'],
      403: ['You are not allowed to use this model.', 'permission_error', null],
      429: ['Rate limit reached for requests.', 'rate_limit_error', 'rate_limit_exceeded'],
      500: ['The server had an error while processing your request.', 'server_error', null],
      503: ['The engine is currently overloaded.', 'server_error', null],
    };
    const [message, type, code] = errors[status] ?? [`HTTP ${status}`, 'server_error', null];
    return { error: { message, type, param: null, code } };
  }
}

const round = (value: number) => Number(value.toFixed(4));
