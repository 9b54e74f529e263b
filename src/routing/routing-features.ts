import type { ChoiceQuestion } from '../decisions/questions/question.types';

/**
 * The four yes/no features the routing hook reads off a prompt. Asking "which model?" directly scored
 * near chance; reading a property off the text does not take reasoning (see the routing study).
 */
export const FEATURES = {
  read_only: 'Does this task only look something up, check, count or answer, without changing files?',
  design: 'Does this task ask to design, plan, decide between options, research or define an architecture?',
  review: 'Does this task ask to review or audit existing work?',
  specified: 'Does this task name the exact steps, files or plan item to work on?',
} as const;

export type Feature = keyof typeof FEATURES;
export type FeatureAnswers = Record<Feature, boolean>;

/** Each feature as a choice between yes and no, so its confidence is the probability of the answer given. */
export function featureQuestions(): Record<Feature, ChoiceQuestion> {
  return Object.fromEntries(
    (Object.keys(FEATURES) as Feature[]).map((id) => [
      id,
      { type: 'choice', instructions: FEATURES[id], criteria: { yes: 'yes', no: 'no' } },
    ]),
  ) as unknown as Record<Feature, ChoiceQuestion>;
}
