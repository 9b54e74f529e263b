/**
 * The System One protocol (`POST /v1/systemone`), shared by every engine that speaks it: TypeSafe's hosted
 * Jev API, Cloudflare Workers AI's Clef (at its own route, in an envelope), laya-serve, von serve and
 * llama-server / engines/systemone/serve.py. See wire-contracts.md §1.
 */
import { isRecord } from '../../common/is-record';
import { setOwn } from '../../common/own-keys';
import { isBare } from '../../decisions/pipeline/question-text';
import { kindOf } from '../../common/is-record';
import { isTokenCount } from '../../decisions/pipeline/engine-reply';
import type { EvaluateReply, EvaluateRequest } from '../../decisions/registry/provider.interface';
import { MalformedResponseError } from '../../decisions/errors/decision-error';

/**
 * How candidates that say no more than their key travel as `criteria`: `labels`, a list of labels (Laya
 * takes it, and keys its probabilities by the labels), or `self-described`, as written.
 */
export type BareCandidates = 'labels' | 'self-described';

/** The decision route, relative to an engine's endpoint. */
export const SYSTEMONE_PATH = '/v1/systemone';

/** Probabilities best first, as a rationale shows them: `block the merge=0.52, rerun the pipeline=0.48`. */
export function probabilitiesBestFirst(probabilities: Record<string, number>, shownAtMost = 5): string {
  // The best few kept in one pass, ties in the engine's order: every answer's rationale comes through here,
  // and sorting a copy of every entry was what a decision's rationale allocated most.
  const options = Object.keys(probabilities);
  const best: string[] = [];
  for (const option of options) {
    const p = probabilities[option];
    let at = best.length;
    while (at > 0 && probabilities[best[at - 1]] < p) at--;
    if (at < shownAtMost) {
      best.splice(at, 0, option);
      if (best.length > shownAtMost) best.pop();
    }
  }
  let listed = '';
  for (const option of best)
    listed += `${listed === '' ? '' : ', '}${option}=${Number(probabilities[option].toFixed(4))}`;
  const more = options.length - best.length;
  return more > 0 ? `${listed}, and ${more} more` : listed;
}

/** `laya typed-decisions: block the merge=0.52, rerun the pipeline=0.48`, or who answered alone (a yes/no). */
export function rationaleOf(source: string, answer: Record<string, unknown>): string {
  const { probabilities } = answer;
  return isRecord(probabilities) && allNumbers(probabilities)
    ? `${source}: ${probabilitiesBestFirst(probabilities as Record<string, number>)}`
    : source;
}

function allNumbers(values: Record<string, unknown>): boolean {
  for (const key in values) if (Object.hasOwn(values, key) && typeof values[key] !== 'number') return false;
  return true;
}

/**
 * The body for typed questions, sent as the caller wrote them. An engine whose `noul` is not to be trusted
 * gets yes/no questions as the two-candidate choice `yes` / `no` instead ({@link noulFromChoice} reads
 * the answer back).
 */
export function typedSystemOneRequest(
  request: EvaluateRequest,
  { model, noulAsChoice, bareCandidates }: { model?: string; noulAsChoice: boolean; bareCandidates: BareCandidates },
): Record<string, unknown> {
  // Built key by key (this runs on every decision), keyed by the caller's ids.
  const questions: Record<string, unknown> = {};
  for (const [id, question] of Object.entries(request.questions)) {
    if (question.type === 'noul' && noulAsChoice) {
      setOwn(questions, id, {
        type: 'choice',
        instructions: question.instructions,
        criteria: { yes: question.criteria?.true ?? null, no: question.criteria?.false ?? null },
      });
    } else if (question.type === 'choice' && bareCandidates === 'labels' && everyBare(question.criteria)) {
      setOwn(questions, id, { ...question, criteria: Object.keys(question.criteria) });
    } else setOwn(questions, id, question);
  }
  // The body's keys in this order, as engines have seen them.
  const body: Record<string, unknown> = {};
  if (model) body.model = model;
  // Laya answers 400 and llama-server 422 to a missing or null state, and TypeSafe refuses scalars: an
  // empty object means "no context" to all of them.
  body.state = request.state ?? {};
  body.questions = questions;
  if (request.images?.length) body.images = request.images;
  if (request.longContext) body.longContext = true;
  return body;
}

function everyBare(criteria: Record<string, unknown>): boolean {
  for (const [key, description] of Object.entries(criteria)) if (!isBare(key, description)) return false;
  return true;
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
  if (!isRecord(body))
    throw new MalformedResponseError(`${engine} answered ${kindOf(body)} instead of a System One reply object`);
  if (!isRecord(body.answers)) {
    throw new MalformedResponseError(
      `${engine} answered without an "answers" object (got ${kindOf(body.answers)}): not a System One reply`,
    );
  }
  const usage = isRecord(body.usage) ? body.usage : {};
  const count = (value: unknown) => (isTokenCount(value) ? value : undefined);
  const inputTokens = count(usage.input_tokens);
  const outputTokens = count(usage.output_tokens);
  return {
    answers: body.answers,
    ...(typeof body.model === 'string' && { model: body.model }),
    ...((inputTokens !== undefined || outputTokens !== undefined) && { usage: { inputTokens, outputTokens } }),
  };
}
