import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { sendJson } from '../common/http/send-json';

/** An error in the OpenAI API's own shape, so clients raise their usual exception. */
export const routerError = (message: string, code: string) => ({
  error: { message, type: 'system1_router_error', param: null, code },
});

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code: string,
  headers: OutgoingHttpHeaders = {},
): void {
  sendJson(res, status, routerError(message, code), headers);
}
