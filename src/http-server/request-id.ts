import { isRecord } from '../common/is-record';

/** What an id must be to travel in a header and a log line: printable ASCII without spaces, 1 to 128 characters. */
const HEADER_SAFE = /^[\x21-\x7e]{1,128}$/;

/**
 * The id a request goes by in the access log and the `x-request-id` answer header, and that its tool call
 * answers under when the arguments give none: the call's own `request_id` (system1_decide's), else the
 * client's (or the load balancer's) `x-request-id`, else a new one.
 */
export function settleRequestId(
  message: Record<string, unknown> | undefined,
  header: string | string[] | undefined,
  generate: () => string,
): string {
  const params = isRecord(message?.params) ? message.params : undefined;
  const args = params && isRecord(params.arguments) ? params.arguments : undefined;
  for (const candidate of [args?.request_id, Array.isArray(header) ? header[0] : header]) {
    if (typeof candidate === 'string' && HEADER_SAFE.test(candidate)) return candidate;
  }
  return generate();
}
