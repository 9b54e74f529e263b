/**
 * Which fit a decision uses: the one rule, shared by the gateway (every decision) and `calibrate` (its
 * headline and held-out figures measure answers scaled exactly as decisions will be).
 */

/** Below this many labelled answers a fit is reported but called too small to trust, and not applied. */
export const MIN_TRUSTED_N = 30;

/** What the rule reads of a fit: what it is for, how it was made, and the calibrate run's verdict. */
export interface FitCandidate {
  provider: string;
  model: string | null;
  question?: string;
  option_count?: number;
  n: number;
  at_bound: boolean;
  /** The verdict of the run that made the fit; absent in files written before it was recorded. */
  trusted?: boolean;
}

/**
 * A fit is applied only when it is trusted: made on at least MIN_TRUSTED_N answers, off the temperature
 * bounds, and not called untrusted by the run that made it. A small fit moves confidence on evidence too
 * thin to move it, so the answer stays as the engine gave it (or takes the option count's fit) instead.
 * A hand-set `trusted: true` cannot lift a fit over the floor.
 */
export function isTrusted(fit: Pick<FitCandidate, 'n' | 'at_bound' | 'trusted'>): boolean {
  return fit.trusted !== false && Number.isFinite(fit.n) && fit.n >= MIN_TRUSTED_N && !fit.at_bound;
}

/** The question a decision asks, of which engine. */
export interface FitTarget {
  provider: string;
  model: string | null;
  question: string;
  optionCount: number;
}

/**
 * The fit applied to an answer: among trusted fits for its provider and model (a fit for another checkpoint
 * means nothing here), the first for its question, else the first for its option count, else none. Earlier
 * fits win, so the caller lists the user's file before the shipped one. The fits are indexed once, for the
 * many answers of a calibrate run or of a server's life.
 */
export function fitChooser<F extends FitCandidate>(fits: readonly F[]): (target: FitTarget) => F | undefined {
  const byQuestion = new Map<string, F>();
  const byOptionCount = new Map<string, F>();
  const firstOnly = (index: Map<string, F>, key: string, fit: F) => index.has(key) || index.set(key, fit);
  for (const fit of fits) {
    if (!isTrusted(fit)) continue;
    if (fit.question !== undefined) firstOnly(byQuestion, JSON.stringify([fit.provider, fit.model, fit.question]), fit);
    else if (fit.option_count !== undefined)
      firstOnly(byOptionCount, JSON.stringify([fit.provider, fit.model, fit.option_count]), fit);
  }
  // Most servers run with no fit at all: then no key is built (two JSON texts a decision, for nothing).
  if (byQuestion.size === 0 && byOptionCount.size === 0) return () => undefined;
  return ({ provider, model, question, optionCount }) =>
    (byQuestion.size > 0 ? byQuestion.get(JSON.stringify([provider, model, question])) : undefined) ??
    byOptionCount.get(JSON.stringify([provider, model, optionCount]));
}
