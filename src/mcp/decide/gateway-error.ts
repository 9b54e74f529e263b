import { DecisionErrorCode } from '../../decisions/errors/decision-error';

/** The error codes of the S1 tools contract, surfaced as data in the response's `error`. */
export enum GatewayErrorCode {
  InvalidRequest = 'invalid_request',
  ConfigError = 'config_error',
  ProviderTimeout = 'provider_timeout',
  ProviderError = 'provider_error',
  MalformedResponse = 'malformed_response',
}

export const ERROR_CODES = Object.values(GatewayErrorCode);

/**
 * How each attempt went. A request hedged across a pool's replicas adds `hedged` (the second copy, sent to
 * another replica after hedge_after_ms, answered first) and `cancelled` (the copy that lost the race, stopped);
 * `cached` is an answer from the decision cache (an identical request within cache_ttl_s), no engine asked.
 */
export const ATTEMPT_OUTCOMES = [
  'ok',
  'abstained',
  'timeout',
  'error',
  'malformed',
  'hedged',
  'cancelled',
  'cached',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** The pipeline's words in the S1 contract: the error a decision ends with, and how each attempt went. */
export const S1_CODES: Readonly<Record<DecisionErrorCode, { error: GatewayErrorCode; attempt: AttemptOutcome }>> = {
  [DecisionErrorCode.InvalidRequest]: { error: GatewayErrorCode.InvalidRequest, attempt: 'error' },
  [DecisionErrorCode.ConfigError]: { error: GatewayErrorCode.ConfigError, attempt: 'error' },
  [DecisionErrorCode.Paused]: { error: GatewayErrorCode.ProviderError, attempt: 'error' },
  [DecisionErrorCode.Unavailable]: { error: GatewayErrorCode.ProviderError, attempt: 'error' },
  [DecisionErrorCode.Unsupported]: { error: GatewayErrorCode.ProviderError, attempt: 'error' },
  [DecisionErrorCode.LimitExceeded]: { error: GatewayErrorCode.ProviderError, attempt: 'error' },
  [DecisionErrorCode.Timeout]: { error: GatewayErrorCode.ProviderTimeout, attempt: 'timeout' },
  [DecisionErrorCode.Cancelled]: { error: GatewayErrorCode.ProviderError, attempt: 'error' },
  [DecisionErrorCode.ProviderError]: { error: GatewayErrorCode.ProviderError, attempt: 'error' },
  [DecisionErrorCode.InvalidResponse]: { error: GatewayErrorCode.MalformedResponse, attempt: 'malformed' },
  [DecisionErrorCode.Abstained]: { error: GatewayErrorCode.ProviderError, attempt: 'abstained' },
  [DecisionErrorCode.CoolingDown]: { error: GatewayErrorCode.ProviderError, attempt: 'error' },
};

/** Refused before anything was sent: the S1 attempt's detail says so. */
export const REFUSALS: ReadonlySet<DecisionErrorCode> = new Set([
  DecisionErrorCode.Unsupported,
  DecisionErrorCode.LimitExceeded,
]);
