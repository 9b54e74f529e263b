import { DeadlineExceeded, formatSeconds } from '../common/deadline';
import { EngineStatusError, EngineTransportError } from '../providers/http/engine-http.errors';
import { MalformedResponseError, ProviderError } from './provider.interface';
import { QuestionError, QuestionErrorCode } from './question.types';

/**
 * A failure a provider reports with its own code (a team's engine that knows it is `unavailable` or that a
 * request is over its `limit_exceeded`). The message is shown to users: keep secrets out of it.
 */
export class System1ProviderError extends ProviderError {
  constructor(
    readonly code: QuestionErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Why the caller's side ended an attempt: it cancelled, or the provider was unregistered meanwhile. */
export class AttemptCancelled extends Error {
  override readonly name = 'AttemptCancelled';
}

/** Codes after which the next model of the chain is tried; `cancelled` ends the chain. */
export const FALLBACK_CODES: ReadonlySet<QuestionErrorCode> = new Set([
  'unavailable',
  'unsupported',
  'limit_exceeded',
  'timeout',
  'provider_error',
  'invalid_response',
]);

/** A whole attempt's failure as a per-question error, in words safe to show. */
export function attemptError(error: unknown, timeoutMs: number): QuestionError {
  if (error instanceof AttemptCancelled) return { code: 'cancelled', message: error.message };
  if (error instanceof DeadlineExceeded) return { code: 'timeout', message: `no answer within ${formatSeconds(timeoutMs)}` };
  if (error instanceof System1ProviderError) return { code: error.code, message: error.message };
  if (error instanceof EngineTransportError) return { code: 'unavailable', message: error.message };
  if (error instanceof EngineStatusError) return { code: statusCode(error.status), message: error.message };
  if (error instanceof MalformedResponseError) return { code: 'invalid_response', message: error.message };
  if (error instanceof ProviderError) return { code: 'provider_error', message: error.message };
  // Anything else is a bug or an unexpected library error whose text may carry request data: name it only.
  return { code: 'provider_error', message: `unexpected ${error instanceof Error ? error.name : typeof error} in the provider` };
}

function statusCode(status: number): QuestionErrorCode {
  if (status === 503) return 'unavailable';
  if (status === 413) return 'limit_exceeded';
  if (status === 501) return 'unsupported';
  return 'provider_error';
}
