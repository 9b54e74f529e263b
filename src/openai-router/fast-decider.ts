import type { DecideRequest, DecideResult } from '../library/library.types';

/**
 * The port the router asks the fast engine through: the library API's `decide` (the question chain behind
 * `createSystem1`), bound in StructuredModule. Tests bind a stub.
 */
export const FAST_DECIDER = Symbol('FAST_DECIDER');
export type FastDecider = (request: DecideRequest) => Promise<DecideResult>;

