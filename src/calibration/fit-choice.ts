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
  const byQuestion = new FitIndex<string, F>();
  const byOptionCount = new FitIndex<number, F>();
  for (const fit of fits) {
    if (!isTrusted(fit)) continue;
    if (fit.question !== undefined) byQuestion.addFirst(fit.provider, fit.model, fit.question, fit);
    else if (fit.option_count !== undefined) byOptionCount.addFirst(fit.provider, fit.model, fit.option_count, fit);
  }
  return ({ provider, model, question, optionCount }) =>
    byQuestion.get(provider, model, question) ?? byOptionCount.get(provider, model, optionCount);
}

/**
 * Fits by provider, then model, then question or option count: a decision looks two up, and a key text built
 * for each (as JSON) was a visible share of a busy server's time. The first fit of a key is kept; an absent
 * model is null, as it was in those keys.
 */
class FitIndex<K, F> {
  private readonly byProvider = new Map<string, Map<string | null, Map<K, F>>>();

  addFirst(provider: string, model: string | null, key: K, fit: F): void {
    let byModel = this.byProvider.get(provider);
    if (!byModel) this.byProvider.set(provider, (byModel = new Map<string | null, Map<K, F>>()));
    let byKey = byModel.get(model ?? null);
    if (!byKey) byModel.set(model ?? null, (byKey = new Map<K, F>()));
    if (!byKey.has(key)) byKey.set(key, fit);
  }

  get(provider: string, model: string | null, key: K): F | undefined {
    return this.byProvider
      .get(provider)
      ?.get(model ?? null)
      ?.get(key);
  }
}
