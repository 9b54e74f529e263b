import { clip } from '../common/clip';

/**
 * What happened to one request, told to the caller in a response header and to the operator in the log.
 * `fast`: the fast engine answered. `ineligible`: the request asks for something it cannot answer.
 * `low_confidence`: a field fell below `min_confidence`. `fast_model_error`: the fast engine failed.
 * `fast_off`: the router was started without a fast engine it may serve (the installer's stand-in mock).
 * Every route but `fast` is answered by the upstream, untouched.
 */
export const ROUTES = ['fast', 'ineligible', 'low_confidence', 'fast_model_error', 'fast_off'] as const;
export type Route = (typeof ROUTES)[number];

export interface RouteReport {
  route: Route;
  /** Names the field, option or failure; absent for `fast`. Never a message's text or a credential. */
  detail?: string;
  /** Shadow mode: `route` is what would have happened; the upstream answered. */
  shadow?: boolean;
}

/**
 * A detail names a field or option the caller chose; a name can be any length, so it is cut to this many characters.
 */
export const MAX_DETAIL_CHARS = 200;

/**
 * A report whose detail is short enough for a header, a log line and the shadow log: a 20,000-character
 * property name would otherwise overflow the client's header limit though the upstream answered.
 */
export function routeReport(route: Route, detail?: string): RouteReport {
  return detail === undefined ? { route } : { route, detail: clip(detail, MAX_DETAIL_CHARS, '…') };
}

export const ROUTE_HEADER = 'x-system1-route';
export const SYSTEM1_REQUEST_ID_HEADER = 'x-system1-request-id';

/**
 * The headers this router puts on every answer. An upstream's of the same name (another router's in a chain,
 * or a lying upstream's) is not relayed: the caller would read a request id the operator cannot find in the
 * log, or a route this router did not take.
 */
export const REPORT_HEADERS: ReadonlySet<string> = new Set([ROUTE_HEADER, SYSTEM1_REQUEST_ID_HEADER]);

/** `fast`, or `low_confidence; shadow; detail="field category at 0.62 < 0.8"`: one ASCII line. */
export function routeHeader(report: RouteReport): string {
  const parts: string[] = [report.route];
  if (report.shadow) parts.push('shadow');
  if (report.detail) parts.push(`detail=${asciiQuoted(report.detail)}`);
  return parts.join('; ');
}

/**
 * A JSON string with everything outside printable ASCII escaped
 * (control characters included), so it is one safe header line.
 */
function asciiQuoted(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
