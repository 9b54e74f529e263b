import { performance } from 'node:perf_hooks';
import {
  DecisionBatch,
  DecisionQuestion,
  MalformedResponseError,
  ProviderError,
  System1Provider,
} from './provider.interface';
import { CheckedAnswer, checkAnswer } from './answer-check';
import { DeadlineExceeded, formatSeconds, withDeadline } from '../common/deadline';

export type AttemptFailure = 'timeout' | 'error' | 'malformed';

export type AttemptResult =
  | { ok: true; answers: Record<string, unknown>; latencyMs: number }
  | { ok: false; failure: AttemptFailure; detail: string; latencyMs: number };

/** One provider call under the attempt's timeout, with its failure classified the way fallback needs. */
export async function runAttempt(
  provider: Pick<System1Provider, 'decide'>,
  batch: DecisionBatch,
  timeoutMs: number,
  requestId: string,
): Promise<AttemptResult> {
  const started = performance.now();
  const failed = (failure: AttemptFailure, detail: string): AttemptResult => ({
    ok: false,
    failure,
    detail,
    latencyMs: performance.now() - started,
  });
  try {
    const answers: unknown = await withDeadline((signal) => provider.decide(batch, { signal, requestId }), timeoutMs);
    if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) {
      return failed('malformed', 'the provider returned no answers object');
    }
    return { ok: true, answers: answers as Record<string, unknown>, latencyMs: performance.now() - started };
  } catch (error) {
    return failed(...classify(error, timeoutMs));
  }
}

/** Also used by health probes, so both report failures in the same words. */
export function classify(error: unknown, timeoutMs: number): [AttemptFailure, string] {
  if (error instanceof DeadlineExceeded) return ['timeout', `no answer within ${formatSeconds(timeoutMs)}`];
  if (error instanceof MalformedResponseError) return ['malformed', error.message];
  if (error instanceof ProviderError) return ['error', error.message];
  // Anything else is a bug or an unexpected library error whose text may carry request data: name it only.
  return ['error', `unexpected ${error instanceof Error ? error.name : typeof error} in the provider`];
}

/** One question asked of one provider, with the answer already checked. */
export type QuestionAttempt = { latencyMs: number } & (
  | { kind: 'failed'; failure: AttemptFailure; detail: string }
  | Exclude<CheckedAnswer, { kind: 'malformed' }>
);

export async function askQuestion(
  provider: Pick<System1Provider, 'decide'>,
  batch: DecisionBatch,
  question: DecisionQuestion,
  timeoutMs: number,
  requestId: string,
): Promise<QuestionAttempt> {
  const result = await runAttempt(provider, batch, timeoutMs, requestId);
  if (!result.ok) return { kind: 'failed', failure: result.failure, detail: result.detail, latencyMs: result.latencyMs };
  const answer = checkAnswer(result.answers[question.id], question);
  if (answer.kind === 'malformed') return { kind: 'failed', failure: 'malformed', detail: answer.detail, latencyMs: result.latencyMs };
  return { ...answer, latencyMs: result.latencyMs };
}
