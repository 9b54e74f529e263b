import { isRecord } from '../../common/is-record';
import { shown } from '../../common/clip';
import { render } from './question-text';
import { type QuestionCapabilities } from '../questions/question-capabilities';
import { type ChoiceQuestion, type Question, type ScoreQuestion } from '../questions/question.types';

export interface WidenedQuestions {
  questions: Record<string, Question>;
  /** One line per score asked as a choice, for the reply's warnings. */
  notes: readonly string[];
  /** The engine's answers with each widened score's read back in the score's shape. */
  restore(answers: Record<string, unknown>): Record<string, unknown>;
}

/**
 * Score questions with more levels than an engine's score takes, asked as a choice among the levels when
 * its choice takes that many candidates: a 0-10 rating is 11 levels, and most System One engines score at
 * most 10. The choice's distribution over the levels is the score's, so the answer is read back as a
 * score. Any other question goes as it is, and an engine that cannot take it refuses.
 */
const NO_NOTES: readonly string[] = Object.freeze([]);
const unchanged = (answers: Record<string, unknown>) => answers;

export function widenScores(
  engine: string,
  questions: Record<string, Question>,
  capabilities: QuestionCapabilities,
): WidenedQuestions {
  const wide = Object.entries(questions).filter((entry): entry is [string, ScoreQuestion] =>
    fitsOnlyAsChoice(entry[1], capabilities),
  );
  // the common case: nothing to copy (and nothing made per call)
  if (wide.length === 0) return { questions, notes: NO_NOTES, restore: unchanged };
  const levels = new Map(wide.map(([id, question]) => [id, question.criteria.length]));
  return {
    questions: { ...questions, ...Object.fromEntries(wide.map(([id, question]) => [id, levelChoice(question)])) },
    notes: wide.map(
      ([id]) =>
        `${engine} scores at most ${capabilities.max_levels} levels, ` +
        `so ${shown(id)} (${levels.get(id)} levels) was asked as a choice among them`,
    ),
    restore: (answers) =>
      Object.fromEntries(
        Object.entries(answers).map(([id, answer]) => [
          id,
          levels.has(id) ? scoreFromChoice(answer, levels.get(id)!) : answer,
        ]),
      ),
  };
}

function fitsOnlyAsChoice(question: Question, { types, max_levels, max_options }: QuestionCapabilities): boolean {
  if (question.type !== 'score' || max_levels === undefined || question.criteria.length <= max_levels) return false;
  return types.includes('choice') && (max_options === undefined || question.criteria.length <= max_options);
}

/** Candidates named by the level's index, described by the level, in order. */
function levelChoice(question: ScoreQuestion): ChoiceQuestion {
  return {
    type: 'choice',
    instructions: `${render(question.instructions)} (the candidates are levels, from lowest to highest)`,
    criteria: Object.fromEntries(question.criteria.map((level, index) => [String(index), level])),
  };
}

/**
 * A level choice's answer in the score's shape: the distribution by level and its expected level. Anything
 * else is left as it came, for the answer reader to name what is wrong with it.
 */
function scoreFromChoice(answer: unknown, levels: number): unknown {
  if (!isRecord(answer) || answer.type !== 'choice' || !isRecord(answer.probabilities)) return answer;
  const { probabilities } = answer;
  const byLevel = Array.from({ length: levels }, (_, index) => probabilities[String(index)]);
  const expected = byLevel.every((p) => typeof p === 'number')
    ? byLevel.reduce((sum, p, index) => sum + index * p, 0)
    : undefined;
  return { type: 'score', probabilities, ...(expected !== undefined && { score: expected }) };
}
