import type { FeatureAnswers } from './routing-features';

export type Tier = 'haiku' | 'sonnet' | 'opus';

/**
 * The routing rule: yours to edit. Design and review work goes to the strongest model, a read-only task
 * to the fastest, everything else to the middle one. `specified` is recorded but not used yet.
 */
export function routeTier({ design, review, read_only }: FeatureAnswers): Tier {
  if (design || review) return 'opus';
  if (read_only) return 'haiku';
  return 'sonnet';
}
