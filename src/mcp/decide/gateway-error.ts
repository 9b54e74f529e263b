/** The error codes of the tools contract, surfaced as data in the response's `error`. */
export enum GatewayErrorCode {
  InvalidRequest = 'invalid_request',
  ConfigError = 'config_error',
  ProviderTimeout = 'provider_timeout',
  ProviderError = 'provider_error',
  MalformedResponse = 'malformed_response',
}

export const ERROR_CODES = Object.values(GatewayErrorCode);
