import type { QuestionOutcome } from '../decisions/questions/decision.types';
import type { ModelRef } from '../decisions/questions/question.types';
import { modelName } from './model-catalog';
import { WireInputError } from './wire-reply';

/** The request header that asks for abstention: answers less confident than it come back withheld. */
export const MIN_CONFIDENCE_HEADER = 'x-system1-min-confidence';
export const REQUEST_ID_HEADER = 'x-system1-request-id';
export const ENGINE_HEADER = 'x-system1-engine';
export const CALIBRATED_HEADER = 'x-system1-calibrated';
export const ABSTAINED_HEADER = 'x-system1-abstained';

const DECIMAL = /^(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)$/;

/** The threshold a request asks for in its header (undefined without one); a value outside 0..1 is refused. */
export function requestedMinConfidence(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  if (value === undefined || !DECIMAL.test(value.trim()))
    throw new WireInputError(MIN_CONFIDENCE_HEADER, 'must be one number from 0 to 1 (the header, sent once)');
  return Number(value.trim());
}

/**
 * A name as a header lists it: printable ASCII, with `%`, `,` and anything else percent-encoded, so a name
 * holding a comma or a non-ASCII letter neither splits the list nor makes the header unsendable.
 */
export function headerItem(text: string): string {
  return text.replace(/[^\x21-\x7e]|[%,]/gu, (character) => encodeURIComponent(character));
}

/** `true` when every answer given was calibrated by a fit, `false` when none was, `partial` in between. */
export function calibratedValue(outcomes: Iterable<QuestionOutcome>): 'true' | 'false' | 'partial' {
  let calibrated = 0;
  let raw = 0;
  for (const outcome of outcomes) {
    if (outcome.status !== 'ok' || !('calibrated' in outcome.answer)) continue;
    if (outcome.answer.calibrated) calibrated++;
    else raw++;
  }
  if (calibrated > 0 && raw > 0) return 'partial';
  return calibrated > 0 ? 'true' : 'false';
}

/** Whether an outcome is an answer held back for its confidence (the pipeline marks it against the threshold). */
export const withheld = (outcome: QuestionOutcome): boolean => outcome.status === 'ok' && outcome.belowThreshold;

/** The extra headers of an answered request: its id, the engines that answered, calibration, what was withheld. */
export function servedHeaders(
  requestId: string,
  engines: readonly ModelRef[],
  outcomes: Iterable<QuestionOutcome>,
  abstained: readonly string[],
): Record<string, string> {
  return {
    [REQUEST_ID_HEADER]: requestId,
    [ENGINE_HEADER]: engines.map((ref) => headerItem(modelName(ref))).join(','),
    [CALIBRATED_HEADER]: calibratedValue(outcomes),
    ...(abstained.length > 0 && { [ABSTAINED_HEADER]: abstained.map(headerItem).join(',') }),
  };
}
