import { FakeEngine, type FakeReply, type RecordedRequest } from './fake-engine';

/** One `choice` question as a fake reads it from a System One request. */
export interface FakeChoiceQuestion {
  id: string;
  type: unknown;
  instructions: unknown;
  /** The option keys: the labels of a list, or the keys of a map. */
  options: string[];
  criteria: 'list' | 'map' | 'invalid';
  /** A score question's levels as text, lowest first (its `options` are their indices). */
  levels?: string[];
}

export const SYSTEMONE_ROUTE = '/v1/systemone';

/**
 * The part every System One fake shares (wire-contracts §1.2, §1.5): reading the questions of a request
 * and answering each `choice` with probabilities over its options, echoed under the question ids in
 * question order and rounded the way real engines round. Subclasses add the engine's own checks, fields,
 * error bodies and health route.
 *
 * Tests steer the answer with `pick` (which option gets the highest probability), `probabilities` (used
 * verbatim, for sums or values a real engine should never send) or `reshape` (rewrites the whole reply).
 */
export abstract class SystemOneEngineFake extends FakeEngine {
  /** The decision route; an engine with its own route (Cloudflare's per-model path) sets its own. */
  protected readonly decisionPaths: readonly string[] = [SYSTEMONE_ROUTE];
  /** The option that gets the highest probability: an index or a label (default: the first option). */
  pick: number | string = 0;
  /** When set, every choice answers with exactly these probabilities, and `choice` is their argmax. */
  probabilities?: Record<string, number>;
  /**
   * A miscalibrated engine with known truth, for calibration tests: when set, a request whose state carries
   * `fake_truth` (the true probabilities, in option order) is answered with truth^distortion, renormalised:
   * over-confident above 1, under-confident below, and a fitted temperature should find `distortion`.
   */
  distortion?: number;
  /**
   * When set, a test's own answer to a choice: the probabilities it returns (undefined: the usual answer
   * from `probabilities`, `distortion` or `pick`). See feature-oracle.ts, an engine of known accuracy.
   */
  answerChoice?: (question: FakeChoiceQuestion, body: unknown) => Record<string, number> | undefined;
  /** When set, the reply body goes through it before it is sent. */
  reshape?: (body: Record<string, unknown>) => unknown;
  /** Answers sent verbatim for these question ids (one malformed answer among good ones). */
  answersById: Record<string, unknown> = {};
  /** P(true) for every `noul` question. */
  noulTrue = 0.8;
  /** The most score levels a question may have (wire-contracts §1.1: 10 on most engines). */
  protected readonly maxLevels: number = 10;
  /** Whether the engine locates things in images (TypeSafe's experimental `box`). */
  protected readonly takesBoxes: boolean = false;
  /** Decimals the engine rounds probabilities to. */
  protected abstract readonly decimals: number;

  /** The engine's own refusal of a request (auth, validation), or undefined to answer it. */
  protected abstract refuse(
    request: RecordedRequest,
    questions: FakeChoiceQuestion[] | undefined,
  ): FakeReply | undefined;
  /** One answer in the engine's shape. */
  protected abstract choiceAnswer(choice: string, probabilities: Record<string, number>): Record<string, unknown>;
  /** The reply around the answers (`model`, `usage`, engine extras). */
  protected abstract envelope(request: RecordedRequest, answers: Record<string, unknown>): FakeReply;
  /** Any route other than the decision route (health, model lists, 404). */
  protected abstract otherRoute(request: RecordedRequest): FakeReply;

  protected answer(request: RecordedRequest): FakeReply {
    if (!this.decisionPaths.includes(request.path)) return this.otherRoute(request);
    const questions = readQuestions(request.body);
    const refused = this.refuse(request, questions);
    if (refused) return refused;
    const answers: Record<string, unknown> = {};
    for (const question of questions!) {
      answers[question.id] = Object.hasOwn(this.answersById, question.id)
        ? this.answersById[question.id]
        : this.answerFor(question, request.body);
    }
    const reply = this.envelope(request, answers);
    return this.reshape ? { ...reply, body: this.reshape(reply.body as Record<string, unknown>) } : reply;
  }

  /** One question's answer: a choice from `answerChoice`, `probabilities`, `distortion` or `pick`; the other types from typedAnswer. */
  protected answerFor(question: FakeChoiceQuestion, body: unknown): Record<string, unknown> {
    if (question.type !== 'choice') return this.typedAnswer(question);
    const truth = this.distortion === undefined ? undefined : truthOf(body, question.options.length);
    const probabilities =
      this.answerChoice?.(question, body) ??
      this.probabilities ??
      (truth ? this.distorted(question.options, truth) : this.distribution(question.options));
    return this.choiceAnswer(argmax(probabilities), probabilities);
  }

  /**
   * Why a non-choice question is refused, or undefined: a score needs 2 to `maxLevels` levels, a box needs
   * an engine that takes boxes and at least one image.
   */
  protected typedProblem(question: FakeChoiceQuestion, body: unknown): string | undefined {
    if (question.type === 'noul') return undefined;
    if (question.type === 'score') {
      return question.criteria === 'list' && question.options.length >= 2 && question.options.length <= this.maxLevels
        ? undefined
        : `questions.${question.id}: "criteria" must be an array of 2 to ${this.maxLevels} levels`;
    }
    if (question.type === 'box' && this.takesBoxes) {
      return isObject(body) && Array.isArray(body.images) && body.images.length > 0
        ? undefined
        : `questions.${question.id}: a box question needs an image`;
    }
    return `questions.${question.id}: unknown question type ${JSON.stringify(question.type)}`;
  }

  /** A `noul`, `score` or `box` answer in the common shape (wire-contracts §1.2). */
  protected typedAnswer(question: FakeChoiceQuestion): Record<string, unknown> {
    if (question.type === 'noul') return { type: 'noul', noul: this.noulTrue };
    if (question.type === 'box')
      return { type: 'box', box: { top: 0.1, bottom: 0.6, left: 0.2, right: 0.7 }, confidence: 0.7 };
    const probabilities = this.probabilities ?? this.distribution(question.options);
    const score = round(
      question.options.reduce((sum, level) => sum + Number(level) * probabilities[level], 0),
      4,
    );
    const legend = Object.fromEntries(question.options.map((level, i) => [level, question.levels![i]]));
    return { type: 'score', score, legend, probabilities, confidence: probabilities[argmax(probabilities)] };
  }

  /** The `pick`ed option highest, the others in their order with falling shares: n, n-1, ... 1 parts. */
  protected distribution(options: string[]): Record<string, number> {
    const top = typeof this.pick === 'number' ? this.pick : Math.max(0, options.indexOf(this.pick));
    const ranked = [options[top], ...options.filter((_, i) => i !== top)];
    const parts = (options.length * (options.length + 1)) / 2;
    const shares = new Map(
      ranked.map((option, rank) => [option, round((options.length - rank) / parts, this.decimals)]),
    );
    return Object.fromEntries(options.map((option) => [option, shares.get(option)!]));
  }

  private distorted(options: string[], truth: number[]): Record<string, number> {
    const powered = truth.map((p) => Math.pow(Math.max(p, 1e-12), this.distortion!));
    const total = powered.reduce((sum, p) => sum + p, 0);
    return Object.fromEntries(options.map((option, i) => [option, round(powered[i] / total, this.decimals)]));
  }

  /** The bearer token a request carried, if any. */
  protected bearerOf(request: RecordedRequest): string | undefined {
    const header = request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    return value?.startsWith('Bearer ') ? value.slice('Bearer '.length) : undefined;
  }

  /** A rough token count of the request, for `usage`. */
  protected inputTokens(request: RecordedRequest): number {
    return Math.max(1, Math.round(JSON.stringify(request.body).length / 4));
  }
}

/** `state.fake_truth` when it is a probability list of the right length. */
function truthOf(body: unknown, options: number): number[] | undefined {
  const truth = isObject(body) && isObject(body.state) ? body.state.fake_truth : undefined;
  return Array.isArray(truth) && truth.length === options && truth.every((p) => typeof p === 'number')
    ? truth
    : undefined;
}

/**
 * An `answerChoice` for calibration examples that carry what the engine is to report in their context: each
 * choice is answered with the request's `state.fake_answer` (one probability per option, in order), or with
 * `otherwise` when the state has none (undefined: the fake's usual answer).
 */
export function reportedInState(otherwise?: number[]): NonNullable<SystemOneEngineFake['answerChoice']> {
  return (question, body) => {
    const reported = (body as { state?: { fake_answer?: number[] } }).state?.fake_answer ?? otherwise;
    return reported && Object.fromEntries(question.options.map((option, i) => [option, reported[i]]));
  };
}

/** The questions of a request, or undefined when the body has no `questions` object. */
export function readQuestions(body: unknown): FakeChoiceQuestion[] | undefined {
  if (!isObject(body) || !isObject(body.questions)) return undefined;
  return Object.entries(body.questions).map(([id, raw]) => {
    const question = isObject(raw) ? raw : {};
    const criteria = question.criteria;
    if (question.type === 'score' && Array.isArray(criteria)) {
      // Levels are answered by their index; the legend names them as sent.
      const levels = criteria.map((level) => (typeof level === 'string' ? level : JSON.stringify(level)));
      return {
        id,
        type: question.type,
        instructions: question.instructions,
        options: levels.map((_, i) => String(i)),
        criteria: 'list',
        levels,
      };
    }
    if (question.type === 'noul' || question.type === 'box') {
      return { id, type: question.type, instructions: question.instructions, options: [], criteria: 'map' };
    }
    if (Array.isArray(criteria) && criteria.every((c) => typeof c === 'string')) {
      return {
        id,
        type: question.type,
        instructions: question.instructions,
        options: criteria as string[],
        criteria: 'list',
      };
    }
    if (isObject(criteria))
      return {
        id,
        type: question.type,
        instructions: question.instructions,
        options: Object.keys(criteria),
        criteria: 'map',
      };
    return { id, type: question.type, instructions: question.instructions, options: [], criteria: 'invalid' };
  });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function round(value: number, decimals: number): number {
  return Number(value.toFixed(decimals));
}

export function argmax(probabilities: Record<string, number>): string {
  return Object.entries(probabilities).reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
}

/** Jev's choice confidence, which llama-server and TypeSafe publish: (n·p_max − 1)/(n − 1), floored at 0. */
export function jevConfidence(probabilities: Record<string, number>): number {
  const values = Object.values(probabilities);
  const n = values.length;
  return n < 2 ? 1 : round(Math.max(0, (n * Math.max(...values) - 1) / (n - 1)), 4);
}
