import type { Question } from '../../decisions/questions/question.types';
import { asChoice } from '../choice/choice-provider';

/**
 * Above this share of non-Latin letters, Laya's English-only checkpoints are confidently wrong (model card,
 * checked live 2026-09-24), so the adapter abstains instead of asking.
 */
export const NON_LATIN_LIMIT = 0.3;

/** How much context text is scanned: enough to judge the script, bounded so a huge context costs nothing. */
const MAX_SCANNED_CHARS = 20_000;

const LETTER = /\p{L}/gu;
const LATIN_LETTER = /\p{Script=Latin}/gu;

/** The share of letters (any script) that are not Latin; 0 for text without letters. */
export function nonLatinShare(texts: readonly string[]): number {
  let letters = 0;
  let latin = 0;
  for (const text of texts) {
    letters += text.match(LETTER)?.length ?? 0;
    latin += text.match(LATIN_LETTER)?.length ?? 0;
  }
  return letters === 0 ? 0 : (letters - latin) / letters;
}

/** The text Laya reads for one question: its wording, its candidates and the string values of the state. */
export function textsOfQuestion(id: string, question: Question, state: unknown): string[] {
  if (question.type === 'box') return [...stringValues(question.instructions), ...stringValues(state)];
  const { text, options } = asChoice(id, question);
  return [text, ...options, ...stringValues(state)];
}

function stringValues(value: unknown, budget = { chars: MAX_SCANNED_CHARS }, depth = 0): string[] {
  if (budget.chars <= 0 || depth > 20) return [];
  if (typeof value === 'string') {
    const text = value.slice(0, budget.chars);
    budget.chars -= text.length;
    return [text];
  }
  if (typeof value !== 'object' || value === null) return [];
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.flatMap((child) => stringValues(child, budget, depth + 1));
}
