import { getMetadataStorage, type ValidationError } from 'class-validator';
import { dtoErrors } from '../../common/dto-verdict';
import { isRecord } from '../../common/is-record';
import { DecideRequestDto } from '../dto/decide-request.dto';
import { REQUEST_ID_MAX_CHARS } from '../../common/limits';

/** The request's fields, from the DTO's own decorators. */
const KNOWN_FIELDS = new Set(
  getMetadataStorage()
    .getTargetValidationMetadatas(DecideRequestDto, '', true, false)
    .map((metadata) => metadata.propertyName),
);

export type RequestCheck = { ok: true; request: DecideRequestDto } | { ok: false; message: string };

/**
 * Checks raw tool arguments against the DTO before any provider runs. Unknown fields are refused, and
 * the message names every field that was wrong.
 */
export function checkDecideRequest(raw: unknown): RequestCheck {
  if (!isRecord(raw)) return { ok: false, message: 'invalid request: the arguments must be a JSON object' };
  // Checked here rather than by class-validator's whitelist, which looks names up in a plain object and
  // so lets "constructor", "toString" or "__proto__" through. A "__proto__" key that went through a plain
  // assignment on its way here (the MCP SDK's argument parsing does that) has become the prototype.
  const unknown = Object.keys(raw).filter((key) => !KNOWN_FIELDS.has(key));
  const prototype = Object.getPrototypeOf(raw) as unknown;
  if (prototype !== Object.prototype && prototype !== null) unknown.push('__proto__');
  if (unknown.length > 0) {
    const problems = unknown.map((key) => `property ${JSON.stringify(key)} should not exist`).join('; ');
    return {
      ok: false,
      message: `invalid request: ${problems}`,
    };
  }
  // Copied with defineProperty, not Object.assign: an own "__proto__" key must stay a plain (rejected) field
  // instead of replacing the DTO's prototype.
  const request = new DecideRequestDto();
  for (const key of Object.keys(raw)) {
    Object.defineProperty(request, key, { value: raw[key], enumerable: true, writable: true, configurable: true });
  }
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
