/** What a served wire answers, before any transport writes it: the status, the headers and the JSON body. */
export interface WireReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The two served wires: OpenAI's Decisions API (`/v1/decisions`) and System One (`/v1/systemone`). */
export type DecisionWire = 'openai' | 'systemone';

/** What an error may say beyond its words: the request field at fault, OpenAI's `code`, and extra headers. */
export interface ErrorDetail {
  param?: string;
  code?: string;
  headers?: Record<string, string>;
}

/** OpenAI's error `type` by status (its client picks BadRequestError, NotFoundError, ... from the status). */
const OPENAI_TYPES: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  429: 'rate_limit_error',
};

/** llama-server's error `type` by status: the System One engine whose error shape this server copies. */
const SYSTEMONE_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large_error',
  429: 'rate_limit_error',
  503: 'unavailable_error',
};

/**
 * An error in the wire's own envelope: OpenAI's `{"error": {message, type, param, code}}` (which its client's
 * error classes read), or System One's as llama-server writes it, `{"error": {code, message, type}}`.
 */
export function wireError(wire: DecisionWire, status: number, message: string, detail: ErrorDetail = {}): WireReply {
  const headers = detail.headers ?? {};
  if (wire === 'systemone') {
    const type = SYSTEMONE_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
    return { status, headers, body: { error: { code: status, message, type } } };
  }
  const type = OPENAI_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  return {
    status,
    headers,
    body: { error: { message, type, param: detail.param ?? null, code: detail.code ?? null } },
  };
}

/** A request the caller got wrong, naming the field at fault (`questions[3].choices`). */
export class WireInputError extends Error {
  override readonly name = 'WireInputError';
  constructor(
    readonly param: string,
    readonly problem: string,
  ) {
    super(`${param} ${problem}`);
  }
}
