import { createHash } from 'node:crypto';
import { type FakeChoiceQuestion, isObject, round } from './systemone-answer';

export interface FeatureOracleOptions {
  /** The teacher's yes/no labels by prompt text, keyed by question id (the routing features). */
  truth: ReadonlyMap<string, Readonly<Record<string, boolean>>>;
  /** The chance, per question id, of answering right; an id not named is always answered right. */
  accuracy: Readonly<Record<string, number>>;
  /** Another seed gives another draw of the same accuracies. */
  seed: string;
}

/** A number in [0, 1) from the parts, the same on every run and machine. */
export function seededUniform(...parts: string[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readUInt32BE(0) / 2 ** 32;
}

/** Confidence ranges: surer when right than when wrong, and never under 0.6, so the threshold drops nothing. */
const RIGHT = { from: 0.7, to: 0.99 };
const WRONG = { from: 0.62, to: 0.9 };

/**
 * An engine of known accuracy on yes/no questions about a prompt (the routing features), for a System One
 * fake's `answerChoice`: each question of a prompt in `truth` is answered right with its chosen chance,
 * decided by hashing the seed, the prompt and the question id, so a rerun gives the same answers. Its
 * confidence is higher on average when it is right (AUROC above 0.5). A question it holds no label for
 * gets undefined: the fake's usual answer.
 */
export function featureOracle({ truth, accuracy, seed }: FeatureOracleOptions) {
  return (question: FakeChoiceQuestion, body: unknown): Record<string, number> | undefined => {
    const prompt = isObject(body) && isObject(body.state) ? body.state.prompt : undefined;
    const label = typeof prompt === 'string' ? truth.get(prompt)?.[question.id] : undefined;
    if (typeof label !== 'boolean' || !question.options.includes('yes') || !question.options.includes('no'))
      return undefined;
    const right = seededUniform(seed, prompt as string, question.id, 'right') < (accuracy[question.id] ?? 1);
    const range = right ? RIGHT : WRONG;
    const confidence = round(
      range.from + (range.to - range.from) * seededUniform(seed, prompt as string, question.id, 'confidence'),
      4,
    );
    const sayYes = right === label;
    return { yes: sayYes ? confidence : round(1 - confidence, 4), no: sayYes ? round(1 - confidence, 4) : confidence };
  };
}
