/**
 * The System One protocol (`POST /v1/systemone`), shared by every engine that speaks it: TypeSafe's hosted
 * Jev API, Cloudflare Workers AI's Clef (at its own route, in an envelope), laya-serve, von serve and
 * llama-server / engines/systemone/serve.py. See wire-contracts.md §1.
 *
 * The gateway asks only `choice` questions: one per batch question, yes/no included (as the two options
 * "yes" and "no"), so every engine answers on the same scale and the reply check is the same everywhere.
 */
import { isRecord } from '../../common/is-record';
import { shown } from '../../config/setting-types';
import { DecisionBatch, DecisionQuestion, MalformedResponseError } from '../provider.interface';

/** The decision route, relative to an engine's endpoint. */
export const SYSTEMONE_PATH = '/v1/systemone';

/**
 * How options travel as `criteria`:
 * - `labels`: a list of labels (Laya accepts it, and its probabilities come back keyed by the labels);
 * - `self-described`: a `{option: option}` map, the core protocol's shape. Each option is its own
 *   description, so an engine that scores the description (a reranker) reads the option text itself.
 */
export type CriteriaStyle = 'labels' | 'self-described';

export interface SystemOneRequestOptions {
  /** Sent only when set: some engines route on it, others ignore it or answer with their own. */
  model?: string;
  criteria: CriteriaStyle;
}

/**
 * Rounded probabilities sum to 0.99..1.01 on real engines (wire-contracts §7.9); a sum further from 1 than
 * this is not rounding but a broken distribution.
 */
export const PROBABILITY_SUM_TOLERANCE = 0.02;

/** The request body: one `choice` question per batch question, keyed by its id, about the batch's state. */
export function systemOneRequest(
  state: DecisionBatch['state'],
  questions: readonly DecisionQuestion[],
  { model, criteria }: SystemOneRequestOptions,
): Record<string, unknown> {
  return {
    ...(model ? { model } : {}),
    // Laya answers 400 and llama-server 422 to a missing or null state, and TypeSafe refuses scalars: an
    // empty object means "no context" to all of them.
    state: state ?? {},
    questions: Object.fromEntries(
      questions.map((question) => [
        question.id,
        {
          type: 'choice',
          instructions: question.text,
          criteria: criteria === 'labels' ? [...question.options] : Object.fromEntries(question.options.map((o) => [o, o])),
        },
      ]),
    ),
  };
}

/** One question's answer, checked: `choice` is an option and `probabilities` cover exactly the options. */
export interface SystemOneChoice {
  /** The question's id. */
  id: string;
  choice: string;
  /** In the question's option order. */
  probabilities: Record<string, number>;
  /** The engine's answer object as received, for engine-specific fields (Laya's `answer_confidence`). */
  raw: Record<string, unknown>;
}

export interface SystemOneReply {
  /** The top-level `model`, when the engine sent a string there. */
  model: string | undefined;
  /** The whole body, for engine-specific top-level fields (Laya's `routing`). */
  body: Record<string, unknown>;
  answers: Map<string, SystemOneChoice>;
}

/**
 * Reads and strictly checks a reply to {@link systemOneRequest}: a top-level object with an `answers` record,
 * and for every question asked an answer of type `choice` whose `choice` is one of the options sent and
 * whose `probabilities` give every option a number in [0, 1] summing to about 1. Anything else throws
 * {@link MalformedResponseError} naming the question and what was wrong.
 */
export function readSystemOneReply(body: unknown, questions: readonly DecisionQuestion[], engine: string): SystemOneReply {
  if (!isRecord(body)) throw new MalformedResponseError(`${engine} answered ${kindOf(body)} instead of a System One reply object`);
  if (!isRecord(body.answers)) {
    throw new MalformedResponseError(`${engine} answered without an "answers" object (got ${kindOf(body.answers)}): not a System One reply`);
  }
  const answers = new Map<string, SystemOneChoice>();
  for (const question of questions) answers.set(question.id, readChoice(body.answers, question, engine));
  return { model: typeof body.model === 'string' ? body.model : undefined, body, answers };
}

function readChoice(answers: Record<string, unknown>, question: DecisionQuestion, engine: string): SystemOneChoice {
  const wrong = (what: string) => new MalformedResponseError(`${engine} answer to question ${shown(question.id)}: ${what}`);
  const answer = Object.hasOwn(answers, question.id) ? answers[question.id] : undefined;
  if (answer === undefined) throw wrong('missing from the reply');
  if (!isRecord(answer)) throw wrong(`not an object (got ${kindOf(answer)})`);
  if (answer.type !== 'choice') throw wrong(`type ${shown(answer.type)} instead of "choice"`);

  const { choice, probabilities } = answer;
  if (typeof choice !== 'string') throw wrong(`"choice" is ${kindOf(choice)}, not an option`);
  if (!question.options.includes(choice)) throw wrong(`the choice ${shown(choice)} is not one of the options sent`);
  if (!isRecord(probabilities)) throw wrong(`"probabilities" is ${kindOf(probabilities)}, not an object`);

  for (const key of Object.keys(probabilities)) {
    if (!question.options.includes(key)) throw wrong(`"probabilities" name ${shown(key)}, which is not one of the options sent`);
  }
  const ordered: Record<string, number> = {};
  let sum = 0;
  for (const option of question.options) {
    const value = Object.hasOwn(probabilities, option) ? probabilities[option] : undefined;
    if (value === undefined) throw wrong(`"probabilities" lack the option ${shown(option)}`);
    if (!isProbability(value)) throw wrong(`the probability of ${shown(option)} is ${shown(value)}, not a number in [0, 1]`);
    Object.defineProperty(ordered, option, { value, enumerable: true, writable: true, configurable: true });
    sum += value;
  }
  if (Math.abs(sum - 1) > PROBABILITY_SUM_TOLERANCE) {
    throw wrong(`"probabilities" sum to ${Number(sum.toFixed(4))}, not about 1`);
  }
  return { id: question.id, choice, probabilities: ordered, raw: answer };
}

/** Probabilities best first, as a rationale shows them: `block the merge=0.52, rerun the pipeline=0.48`. */
export function probabilitiesBestFirst(probabilities: Record<string, number>, shownAtMost = 5): string {
  const ranked = Object.entries(probabilities).sort(([, a], [, b]) => b - a);
  const listed = ranked.slice(0, shownAtMost).map(([option, p]) => `${option}=${Number(p.toFixed(4))}`);
  const more = ranked.length - shownAtMost;
  return more > 0 ? `${listed.join(', ')}, and ${more} more` : listed.join(', ');
}

export const isProbability = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
