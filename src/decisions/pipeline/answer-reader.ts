import { isRecord } from '../../common/is-record';
import { shown } from '../../common/clip';
import { isProbability, readDistribution } from './distribution';
import { kindOf } from '../../common/is-record';
import { type Answer, type Question } from '../questions/question.types';

export type ReadAnswer = { ok: true; answer: Answer; rationale?: string } | { ok: false; problem: string };

/**
 * Reads one engine answer in the System One shape (wire-contracts §1.2) for the question it answers, and
 * checks it strictly: the type asked, a choice among the candidates sent, probabilities covering them, a
 * score's levels and legend matching the criteria, box edges inside the image. Confidence is put on one
 * scale for every engine: the probability of the answer given (|2p - 1| for yes/no), never an engine's
 * own formula, so one threshold means the same on every engine.
 */
export function readAnswer(raw: unknown, question: Question): ReadAnswer {
  const read = readTyped(raw, question);
  return read.ok && isRecord(raw) && typeof raw.rationale === 'string' ? { ...read, rationale: raw.rationale } : read;
}

function readTyped(raw: unknown, question: Question): ReadAnswer {
  const wrong = (problem: string): ReadAnswer => ({ ok: false, problem });
  if (raw === undefined) return wrong('missing from the reply');
  if (!isRecord(raw)) return wrong(`not an object (got ${kindOf(raw)})`);
  if (raw.type !== question.type) return wrong(`type ${shown(raw.type)} instead of ${shown(question.type)}`);
  switch (question.type) {
    case 'choice':
      return readChoice(raw, Object.keys(question.criteria), wrong);
    case 'noul':
      return readNoul(raw, wrong);
    case 'score':
      return readScore(raw, question.criteria, wrong);
    case 'box':
      return readBox(raw, wrong);
  }
}

type Wrong = (problem: string) => ReadAnswer;

function readChoice(raw: Record<string, unknown>, keys: string[], wrong: Wrong): ReadAnswer {
  const { choice } = raw;
  if (typeof choice !== 'string' || !keys.includes(choice))
    return wrong(`the choice ${shown(choice)} is not one of the candidates sent`);
  const read = readDistribution(raw.probabilities, keys);
  if (!read.ok) return wrong(read.problem);
  return { ok: true, answer: choiceAnswer(read.probabilities, choice) };
}

/**
 * A choice and its probability. `value` is the engine's pick; without one (after calibration, which keeps
 * the order) the most probable candidate.
 */
export function choiceAnswer(probabilities: Record<string, number>, value?: string, calibrated = false): Answer {
  const chosen = value ?? Object.entries(probabilities).reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
  return { type: 'choice', value: chosen, probabilities, confidence: probabilities[chosen], calibrated };
}

function readNoul(raw: Record<string, unknown>, wrong: Wrong): ReadAnswer {
  if (!isProbability(raw.noul)) return wrong(`"noul" is ${shown(raw.noul)}, not a probability in [0, 1]`);
  return { ok: true, answer: noulAnswer(raw.noul) };
}

export function noulAnswer(probabilityTrue: number, calibrated = false): Answer {
  return {
    type: 'noul',
    value: probabilityTrue >= 0.5,
    probabilityTrue,
    confidence: Math.abs(2 * probabilityTrue - 1),
    calibrated,
  };
}

function readScore(raw: Record<string, unknown>, criteria: unknown[], wrong: Wrong): ReadAnswer {
  const levels = criteria.map((_, index) => String(index));
  const read = readDistribution(raw.probabilities, levels);
  if (!read.ok) return wrong(read.problem);
  const { score, legend } = raw;
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > levels.length - 1) {
    return wrong(`"score" is ${shown(score)}, not a level between 0 and ${levels.length - 1}`);
  }
  if (legend !== undefined) {
    if (!isRecord(legend) || Object.keys(legend).join() !== levels.join())
      return wrong(`"legend" does not list the ${levels.length} levels sent`);
    const mismatch = criteria.findIndex((level, index) => typeof level === 'string' && legend[String(index)] !== level);
    if (mismatch >= 0)
      return wrong(`"legend" names level ${mismatch} ${shown(legend[String(mismatch)])}, not the level sent`);
  }
  return { ok: true, answer: scoreAnswer(Object.values(read.probabilities), score) };
}

/** `expected` is the engine's Σ i·p_i; recomputed from the distribution when none is given (after calibration). */
export function scoreAnswer(distribution: number[], expected?: number, calibrated = false): Answer {
  // A loop, not Math.max(...distribution): spreading a long list as arguments overflows the stack.
  const level = distribution.reduce((best, p, index) => (p > distribution[best] ? index : best), 0);
  const value = expected ?? distribution.reduce((sum, p, index) => sum + index * p, 0);
  return { type: 'score', value, level, distribution, confidence: distribution[level], calibrated };
}

function readBox(raw: Record<string, unknown>, wrong: Wrong): ReadAnswer {
  const { box, confidence } = raw;
  if (!isRecord(box)) return wrong(`"box" is ${kindOf(box)}, not {top, bottom, left, right}`);
  const edges = { top: box.top, bottom: box.bottom, left: box.left, right: box.right };
  for (const [edge, value] of Object.entries(edges)) {
    if (!isProbability(value))
      return wrong(`the box's ${edge} edge is ${shown(value)}, not a fraction of the image in [0, 1]`);
  }
  const { top, bottom, left, right } = edges as Record<keyof typeof edges, number>;
  if (top > bottom || left > right) return wrong('the box is inside out (top below bottom or left right of right)');
  if (confidence !== undefined && !isProbability(confidence))
    return wrong(`"confidence" is ${shown(confidence)}, not a number in [0, 1]`);
  return {
    ok: true,
    answer: { type: 'box', box: { top, bottom, left, right }, ...(confidence !== undefined && { confidence }) },
  };
}
