import { checkDto } from '../common/dto-check';
import { isRecord } from '../common/is-record';
import { System1InputError } from '../decisions/errors/input-error';
import { boxWithoutImage } from '../decisions/dto/json-value.decorators';
import { LibraryDecideRequestDto } from './dto/library-request.dto';
import type { DecideRequest } from './library.types';

/**
 * Checks the structure of a library call against its DTOs and throws {@link System1InputError} naming the
 * first thing wrong (`questions.urgency.criteria`). What an engine may or may not take (types, counts,
 * image formats) is not checked here: that is per engine and ends in a per-question `unsupported` or
 * `limit_exceeded` instead.
 */
export function assertLibraryRequest(request: unknown): asserts request is DecideRequest {
  if (!isRecord(request)) throw new System1InputError('the request', 'must be an object with state and questions');
  const [first] = checkDto(LibraryDecideRequestDto, request, '', 'a decision request');
  if (first) throw new System1InputError(first.field, first.problem);
  const box = boxWithoutImage(Object.entries(request.questions as Record<string, { type: string }>), request.images);
  if (box !== undefined) {
    throw new System1InputError(`questions.${box}`, 'is a box question, which needs at least one image in images');
  }
}
