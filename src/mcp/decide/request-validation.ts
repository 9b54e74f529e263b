import type { ValidationError } from 'class-validator';
import { declaredFields, dtoInstance, notAFieldOf, undeclaredKeys } from '../../common/dto-check';
import { dtoErrors } from '../../common/dto-verdict';
import { isRecord } from '../../common/is-record';
import { DecideRequestDto } from '../dto/decide-request.dto';
import { REQUEST_ID_MAX_CHARS } from '../../common/limits';

/** The request's fields, from the DTO's own decorators: looked up once, not at every call. */
const FIELDS = declaredFields(DecideRequestDto);
const NOT_A_FIELD = notAFieldOf('the system1_decide arguments', FIELDS);

export type RequestCheck = { ok: true; request: DecideRequestDto } | { ok: false; message: string };

/**
 * Checks raw tool arguments against the DTO before any provider runs. Unknown fields are refused in the
 * words system1_ask and the library use, and the message names every field that was wrong.
 */
export function checkDecideRequest(raw: unknown): RequestCheck {
  if (!isRecord(raw)) return { ok: false, message: 'invalid request: the arguments must be a JSON object' };
  const unknown = undeclaredKeys(raw, FIELDS);
  if (unknown.length > 0) {
    const problems = unknown.map((key) => `${JSON.stringify(key)} ${NOT_A_FIELD}`).join('; ');
    return { ok: false, message: `invalid request: ${problems}` };
  }
  const request = dtoInstance(DecideRequestDto, raw);
  const errors = dtoErrors(request, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length === 0) return { ok: true, request };
  return { ok: false, message: `invalid request: ${errors.map(describe).join('; ')}` };
}

function describe(error: ValidationError): string {
  const messages = Object.values(error.constraints ?? {});
  return messages.length > 0 ? messages.join(', ') : `${error.property} is invalid`;
}

/** The request id to answer with, even for a request that fails validation, so the caller can correlate. */
export function requestIdOf(raw: unknown, generate: () => string): string {
  const candidate = isRecord(raw) ? raw.request_id : undefined;
  const usable = typeof candidate === 'string' && candidate.length >= 1 && candidate.length <= REQUEST_ID_MAX_CHARS;
  return usable ? candidate : generate();
}
