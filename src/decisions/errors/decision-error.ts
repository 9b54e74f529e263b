import { AttemptCancelled, DeadlineExceeded, formatSeconds } from '../../common/deadline';

/**
 * Every way a decision, or one engine's attempt at it, can fail: the one vocabulary of the gateway. Each
 * surface maps it onto its own contract with one table (`system1_decide`'s five codes, the library's seven).
 */
export enum DecisionErrorCode {
  /** The request's structure is wrong; no engine was asked. */
  InvalidRequest = 'invalid_request',
  /** The config file, the environment or a provider's settings have problems; no engine was asked. */
  ConfigError = 'config_error',
  /** System-1 is paused (`system1 toggle off`); no engine was asked. */
  Paused = 'paused',
  /** The engine could not be reached, or is not configured. */
  Unavailable = 'unavailable',
  /** The engine does not take this question type, image or option. */
  Unsupported = 'unsupported',
  /** A count is over the engine's limit (options, questions, images). */
  LimitExceeded = 'limit_exceeded',
  /** No answer within the attempt's deadline. */
  Timeout = 'timeout',
  /** The caller cancelled, or the engine was unregistered during the call. */
  Cancelled = 'cancelled',
  /** The engine answered with an error of its own. */
  ProviderError = 'provider_error',
  /** The engine's reply, or its answer to one question, cannot be read. */
  InvalidResponse = 'invalid_response',
  /** The engine declined to answer ("reason it through yourself"); never a reason to ask another engine. */
  Abstained = 'abstained',
  /** The engine was skipped: it failed recently and its cooldown has not run out. */
  CoolingDown = 'cooling_down',
}

export interface DecisionError {
  code: DecisionErrorCode;
  /** Safe to show: never a secret, never the engine's raw reply. */
  message: string;
  /** The engine's HTTP status, when it answered with an error status (a 422 stays `provider_error`). */
  httpStatus?: number;
}

/** A transport or engine failure; the message is shown to users, so it must not contain secrets. */
export class ProviderError extends Error {
  override readonly name: string = 'ProviderError';
}

/** An engine reply the provider cannot read; the message is shown to users. */
export class MalformedResponseError extends Error {
  override readonly name: string = 'MalformedResponseError';
}

/** The engine could not be reached or the connection broke (refused, reset, DNS, TLS, cut-off reply). */
export class EngineTransportError extends ProviderError {
  override readonly name: string = 'EngineTransportError';
}

/** The engine answered with a non-2xx status (a redirect included, which is never followed). */
export class EngineStatusError extends ProviderError {
  override readonly name: string = 'EngineStatusError';

  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

/** The engine answered 2xx with a body that is not JSON. */
export class EngineBodyError extends MalformedResponseError {
  override readonly name: string = 'EngineBodyError';
}

/**
 * A failure an engine reports with its own code (a team's engine that knows it is `unavailable`, or that a
 * request is over its `limit_exceeded`). The message is shown to users: keep secrets out of it.
 */
export class System1ProviderError extends ProviderError {
  override readonly name: string = 'System1ProviderError';
  readonly code: DecisionErrorCode;
  constructor(code: DecisionErrorCode | `${DecisionErrorCode}`, message: string) {
    super(message);
    this.code = code as DecisionErrorCode;
  }
}

const BY_STATUS: Readonly<Record<number, DecisionErrorCode>> = {
  503: DecisionErrorCode.Unavailable,
  413: DecisionErrorCode.LimitExceeded,
  501: DecisionErrorCode.Unsupported,
};

/** What an attempt's failure means, in words safe to show. `timeoutMs` names the budget a timeout ran out of. */
export function toDecisionError(error: unknown, timeoutMs: number): DecisionError {
  try {
    return classify(error, timeoutMs);
  } catch {
    // A Proxy or a getter that throws: nothing of it can be read, so nothing of it is shown.
    return { code: DecisionErrorCode.ProviderError, message: 'the provider failed with an error that cannot be read' };
  }
}

const CODES: ReadonlySet<unknown> = new Set(Object.values(DecisionErrorCode));
/** Kinds of error named by our own words when a provider throws one unexpectedly (its own `name` is its text). */
const BUILT_IN_ERRORS = [TypeError, RangeError, SyntaxError, ReferenceError, Error] as const;

function classify(error: unknown, timeoutMs: number): DecisionError {
  const unexpected = (): DecisionError => {
    const kind = BUILT_IN_ERRORS.find((type) => error instanceof type)?.name ?? typeof error;
    return { code: DecisionErrorCode.ProviderError, message: `unexpected ${kind} in the provider` };
  };
  const as = (code: DecisionErrorCode): DecisionError => {
    const { message } = error as Error;
    return typeof message === 'string' ? { code, message } : unexpected();
  };
  if (error instanceof AttemptCancelled) return as(DecisionErrorCode.Cancelled);
  if (error instanceof DeadlineExceeded)
    return { code: DecisionErrorCode.Timeout, message: `no answer within ${formatSeconds(timeoutMs)}` };
  if (error instanceof System1ProviderError)
    return as(CODES.has(error.code) ? error.code : DecisionErrorCode.ProviderError);
  if (error instanceof EngineTransportError) return as(DecisionErrorCode.Unavailable);
  if (error instanceof EngineStatusError) {
    const read = as(BY_STATUS[error.status] ?? DecisionErrorCode.ProviderError);
    return Number.isInteger(error.status) ? { ...read, httpStatus: error.status } : read;
  }
  if (error instanceof MalformedResponseError) return as(DecisionErrorCode.InvalidResponse);
  if (error instanceof ProviderError) return as(DecisionErrorCode.ProviderError);
  // Anything else is a bug or an unexpected library error whose text may carry request data: name it only.
  return unexpected();
}
