/**
 * `text` as a message or a log line shows it: whole up to `max` characters, else cut so that with `mark`
 * it is `max` long. A cut never leaves half of a surrogate pair, so what is kept is still valid text.
 *
 * @example clip('a very long name', 10) === 'a very ...'
 */
export function clip(text: string, max: number, mark = '...'): string {
  if (text.length <= max) return text;
  const keep = Math.max(max - mark.length, 0);
  const end = keep > 0 && /[\ud800-\udbff]/.test(text[keep - 1]) ? keep - 1 : keep;
  return `${text.slice(0, end)}${mark}`;
}

/** `text` on one line (each run of white space one space) and at most `max` characters: an error's words. */
export const oneLine = (text: string, max: number): string => clip(text.replace(/\s+/g, ' '), max, '');

/** A short, safe rendering of a value for an error message: JSON, at most 60 characters. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : safeJson(value);
  return clip(text, 60);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return typeof value;
  }
}
