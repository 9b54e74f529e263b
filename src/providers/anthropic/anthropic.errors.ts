import { EngineStatusError } from '../../decisions/errors/decision-error';
import { ProviderError } from '../../decisions/errors/decision-error';

/** The only place the key is read from (never the config file, never SYSTEM1_ANTHROPIC_API_KEY). */
export const API_KEY_VARIABLE = 'ANTHROPIC_API_KEY';

export function missingKeyError(): ProviderError {
  return new ProviderError(
    `${API_KEY_VARIABLE} is not set: export your Anthropic API key as ${API_KEY_VARIABLE} in the environment ` +
      'the gateway starts in (it is never read from the config file)',
  );
}

/**
 * What an Anthropic status means for the user (wire-contracts 3.3), in front of the shared client's own
 * words, which already carry the API's message (secrets scrubbed) and any Retry-After. The key itself is
 * never named, only the variable it came from.
 */
function meaning(status: number, model: string): string | undefined {
  switch (status) {
    case 400:
      return 'the Anthropic API rejected the request (invalid_request_error)';
    case 401:
      return (
        `the Anthropic API refused the key in ${API_KEY_VARIABLE} (authentication_error): ` +
        'check that it is a current key'
      );
    case 402:
      return 'the Anthropic account cannot be billed (billing_error)';
    case 403:
      return `the key in ${API_KEY_VARIABLE} may not use this API or model (permission_error)`;
    case 404:
      return (
        `the Anthropic API does not know model ${JSON.stringify(model)}: ` +
        'set providers.anthropic.model to a model your key can use'
      );
    case 413:
      return 'the request is too large for the Anthropic API (request_too_large)';
    case 429:
      return 'the Anthropic API is rate limiting this key (rate_limit_error)';
    case 529:
      return 'the Anthropic API is overloaded (overloaded_error): try again later or configure a fallback';
    default:
      return status >= 500 ? `the Anthropic API failed (HTTP ${status})` : undefined;
  }
}

/** The same failure with the user's next step in front; anything else passes through unchanged. */
export function explainFailure(error: unknown, model: string): unknown {
  if (!(error instanceof EngineStatusError)) return error;
  const words = meaning(error.status, model);
  return words ? new EngineStatusError(error.status, `${words}: ${error.message}`, error.retryAfterS) : error;
}
