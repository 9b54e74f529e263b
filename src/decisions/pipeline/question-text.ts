import { setOwn } from '../../common/own-keys';
import type { Described, NoulQuestion } from '../questions/question.types';

/** Instructions and descriptions as an engine reads them: text as it is, JSON written out. */
/**
 * Options that stand for themselves as a choice's candidates: each is its own description, so an engine that
 * scores descriptions (a reranker) reads the option itself. An option may be named like an Object.prototype
 * member ("__proto__", "constructor"): each is an own key all the same (see setOwn).
 */
export function selfDescribed(options: readonly string[]): Record<string, string> {
  const criteria: Record<string, string> = {};
  for (const option of options) setOwn(criteria, option, option);
  return criteria;
}

/** A candidate that says no more than its key. */
export const isBare = (key: string, description: unknown): boolean => description === null || description === key;

export function render(text: Described): string {
  return typeof text === 'string' ? text : JSON.stringify(text);
}

/**
 * A yes/no question's instructions with what true and false mean, when it says, for an engine that takes no
 * criteria for one: `Is it safe? Yes means: nothing breaks. No means: data is lost.`
 */
export function noulText(question: NoulQuestion): string {
  const meaning = [
    question.criteria?.true !== undefined ? `Yes means: ${render(question.criteria.true)}.` : '',
    question.criteria?.false !== undefined ? `No means: ${render(question.criteria.false)}.` : '',
  ].filter(Boolean);
  return [render(question.instructions), ...meaning].join(' ');
}
