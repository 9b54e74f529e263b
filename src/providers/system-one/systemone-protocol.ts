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
import { kindOf, readDistribution } from '../../decisions/distribution';
import { DecisionBatch, DecisionQuestion, EvaluateReply, EvaluateRequest, MalformedResponseError } from '../../decisions/provider.interface';

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
  const envelope = readSystemOneEnvelope(body, engine);
  const answers = new Map<string, SystemOneChoice>();
  for (const question of questions) answers.set(question.id, readChoice(envelope.answers, question, engine));
  return { model: envelope.model, body: body as Record<string, unknown>, answers };
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
  const read = readDistribution(probabilities, question.options);
  if (!read.ok) throw wrong(read.problem);
  return { id: question.id, choice, probabilities: read.probabilities, raw: answer };
}

/** Probabilities best first, as a rationale shows them: `block the merge=0.52, rerun the pipeline=0.48`. */
export function probabilitiesBestFirst(probabilities: Record<string, number>, shownAtMost = 5): string {
  const ranked = Object.entries(probabilities).sort(([, a], [, b]) => b - a);
  const listed = ranked.slice(0, shownAtMost).map(([option, p]) => `${option}=${Number(p.toFixed(4))}`);
  const more = ranked.length - shownAtMost;
  return more > 0 ? `${listed.join(', ')}, and ${more} more` : listed.join(', ');
}

/**
 * The body for typed questions, sent as the caller wrote them. An engine whose `noul` is not to be trusted
 * gets yes/no questions as the two-candidate choice `yes` / `no` instead ({@link noulFromChoice} reads
 * the answer back).
 */
export function typedSystemOneRequest(
  request: EvaluateRequest,
  { model, noulAsChoice }: { model?: string; noulAsChoice: boolean },
): Record<string, unknown> {
  const questions = Object.fromEntries(
    Object.entries(request.questions).map(([id, question]) => [
      id,
      question.type === 'noul' && noulAsChoice
        ? {
            type: 'choice',
            instructions: question.instructions,
            criteria: { yes: question.criteria?.true ?? null, no: question.criteria?.false ?? null },
          }
        : question,
    ]),
  );
  return {
    ...(model ? { model } : {}),
    state: request.state,
    questions,
    ...(request.images?.length ? { images: request.images } : {}),
    ...(request.longContext ? { longContext: true } : {}),
  };
}

/** A yes/no question asked as a choice, answered back as a `noul` (P(yes)); anything else untouched. */
export function noulFromChoice(answer: unknown): unknown {
  if (!isRecord(answer) || answer.type !== 'choice' || !isRecord(answer.probabilities)) return answer;
  return { type: 'noul', noul: answer.probabilities.yes };
}

/**
 * Reads the envelope of a typed reply: an object with an `answers` record (each answer is checked per
 * question by the gateway), the answering `model` and `usage` when the engine sends them.
 */
export function readSystemOneEnvelope(body: unknown, engine: string): EvaluateReply {
  if (!isRecord(body)) throw new MalformedResponseError(`${engine} answered ${kindOf(body)} instead of a System One reply object`);
  if (!isRecord(body.answers)) {
    throw new MalformedResponseError(`${engine} answered without an "answers" object (got ${kindOf(body.answers)}): not a System One reply`);
  }
  const usage = isRecord(body.usage) ? body.usage : {};
  const count = (value: unknown) => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined);
  const inputTokens = count(usage.input_tokens);
  const outputTokens = count(usage.output_tokens);
  return {
    answers: body.answers,
    ...(typeof body.model === 'string' && { model: body.model }),
    ...((inputTokens !== undefined || outputTokens !== undefined) && { usage: { inputTokens, outputTokens } }),
  };
}
