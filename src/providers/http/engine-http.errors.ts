import { MalformedResponseError, ProviderError } from '../../decisions/provider.interface';

/** The engine could not be reached or the connection broke (refused, reset, DNS, TLS, cut-off reply). */
export class EngineTransportError extends ProviderError {}

/** The engine answered with a non-2xx status (a redirect included, which is never followed). */
export class EngineStatusError extends ProviderError {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

/** The engine answered 2xx with a body that is not JSON. */
export class EngineBodyError extends MalformedResponseError {}
