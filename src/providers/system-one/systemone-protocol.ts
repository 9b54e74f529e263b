/**
 * The System One protocol (`POST /v1/systemone`), shared by every engine that speaks it: TypeSafe's hosted
 * Jev API, Cloudflare Workers AI's Clef (at its own route, in an envelope), laya-serve, von serve and
 * llama-server / engines/systemone/serve.py. See wire-contracts.md §1.
 */
import { isRecord } from '../../common/is-record';
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
  const ranked = Object.entries(probabilities).sort(([, a], [, b]) => b - a);
  const listed = ranked.slice(0, shownAtMost).map(([option, p]) => `${option}=${Number(p.toFixed(4))}`);
  const more = ranked.length - shownAtMost;
  return more > 0 ? `${listed.join(', ')}, and ${more} more` : listed.join(', ');
}

/** `laya typed-decisions: block the merge=0.52, rerun the pipeline=0.48`, or who answered alone (a yes/no). */
export function rationaleOf(source: string, answer: Record<string, unknown>): string {
  const { probabilities } = answer;
  const numbers = isRecord(probabilities) && Object.values(probabilities).every((p) => typeof p === 'number');
  return numbers ? `${source}: ${probabilitiesBestFirst(probabilities as Record<string, number>)}` : source;
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
  const questions: Record<string, unknown> = Object.fromEntries<unknown>(
    Object.entries(request.questions).map(([id, question]) => {
      if (question.type === 'noul' && noulAsChoice) {
        return [
          id,
          {
            type: 'choice',
            instructions: question.instructions,
            criteria: { yes: question.criteria?.true ?? null, no: question.criteria?.false ?? null },
          },
        ];
      }
      if (
        question.type === 'choice' &&
        bareCandidates === 'labels' &&
        Object.entries(question.criteria).every(([key, d]) => isBare(key, d))
      ) {
        return [id, { ...question, criteria: Object.keys(question.criteria) }];
      }
      return [id, question];
    }),
  );
  return {
    ...(model ? { model } : {}),
    // Laya answers 400 and llama-server 422 to a missing or null state, and TypeSafe refuses scalars: an
    // empty object means "no context" to all of them.
    state: request.state ?? {},
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
