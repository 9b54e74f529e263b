import type { DecideRequest, DecideResult } from '../questions/question.types';

/**
 * The port the router asks the fast engine through: the library API's `decide` (`createSystem1`), bound
 * in StructuredModule. Tests bind a stub.
 */
export const FAST_DECIDER = Symbol('FAST_DECIDER');
export type FastDecider = (request: DecideRequest) => Promise<DecideResult>;

/**
 * Stands in until the library API is bound: every eligible request falls back to the upstream with
 * `fast_model_error`, so the router forwards correctly without a fast engine.
 */
export const unwiredFastDecider: FastDecider = () => Promise.reject(new Error('the fast engine is not connected to the router in this build'));
