import type { Described } from './question.types';

/** Instructions and descriptions as an engine reads them: text as it is, JSON written out. */
export function render(text: Described): string {
  return typeof text === 'string' ? text : JSON.stringify(text);
}
