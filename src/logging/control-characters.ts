/**
 * Control characters a terminal or a log reader would act on: C0 (newline and tab included), DEL, C1, and
 * U+2028/U+2029, which some readers take for line ends. Text from a request (a request id, a prompt id, an
 * engine's error) reaches the logs, and one of these in it could clear the screen, recolour it, rewind a line
 * or start a forged record.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** JSON's short forms, which read better than \uXXXX in a stack or a multi-line message. */
const SHORT: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

/**
 * Escapes them as JSON does (`\n`, `\r`, `\t`, `\b`, `\f`, else `\uXXXX`), and also DEL, C1 and U+2028/U+2029,
 * which JSON.stringify leaves raw. Quotes and backslashes stay as they are: a log line is read, not parsed,
 * and a Windows path should read as one. On JSON text it keeps the JSON valid and its value the same.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (char) => SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
