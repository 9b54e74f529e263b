/**
 * The one place engine text loses the keys it may echo. An engine that quotes a request back ("invalid
 * credentials: ...") rarely quotes the key as sent: it may decode a Basic header and show its base64, log
 * the key percent-encoded from a URL, or put it in a JSON string with `\/` escapes. So each key is looked for
 * in every form an engine would echo:
 * - as written, or with any of its characters percent-encoded (`%2F`, either case) or JSON-escaped
 *   (`\/`, `\"`, `\u002f`);
 * - in base64, standard or url-safe, padded or not, alone or inside a longer value such as the
 *   `user:key` or `key:` of a Basic header: the base64 that only the key's bytes decide is found at each
 *   of the three byte alignments, and the whole base64 run around it is redacted;
 * and, whatever the keys, anything shaped like a bearer token or an `sk-` key.
 */

export const REDACTED = '[redacted]';

/** A key shorter than this is not looked for inside longer base64 runs (too likely to match by chance). */
const MIN_BASE64_CORE = 8;

/**
 * How many backslashes an escape may sit behind (JSON inside JSON inside JSON...). Bounded, as is the
 * depth of percent-encoding, so that engine text of nothing but backslashes or `%25`s costs linear time.
 */
const ESCAPE_DEPTH = '{1,15}';

/** Characters of either base64 alphabet (a url-safe run may sit next to a standard one in the same text). */
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/** Anything shaped like a bearer token or an `sk-` key, whoever's it is: a key the gateway never sent, say. */
const TOKEN_SHAPED = /\b(bearer|sk-[a-z]*)[\s-]?[A-Za-z0-9._~+/=-]{8,}/gi;

/**
 * Text with every form of each secret, and anything token-shaped, replaced by {@link REDACTED}. Empty or
 * unset secrets are ignored.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const keys = [...new Set(secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== ''))];
  // Longest first, so a key that contains another is removed whole.
  keys.sort((a, b) => b.length - a.length);
  let safe = text;
  for (const key of keys) safe = safe.replace(textForms(key), REDACTED);
  for (const key of keys) safe = redactBase64Runs(safe, base64Cores(key));
  return safe.replace(TOKEN_SHAPED, REDACTED);
}

/**
 * Matches the key with each character as written, percent-encoded or JSON-escaped, in any mix, and at any
 * depth (a message quoting a JSON request that quotes the key: `\\/`; a URL in a URL: `%252F`).
 */
function textForms(key: string): RegExp {
  const characters = Array.from(key, (character) => {
    const forms = [escapeRegExp(character), percentEncoded(character), jsonUnicodeEscaped(character)];
    if (character === '\\') forms[0] = `\\\\${ESCAPE_DEPTH}`;
    else if (character === '/' || character === '"') forms.push(`\\\\${ESCAPE_DEPTH}${escapeRegExp(character)}`);
    return `(?:${forms.join('|')})`;
  });
  return new RegExp(characters.join(''), 'g');
}

/** `%2F` or `%2f` (or `%252F`, encoded twice); every UTF-8 byte of the character. */
function percentEncoded(character: string): string {
  return [...Buffer.from(character, 'utf8')]
    .map((byte) => `%(?:25){0,3}${anyCaseHex(byte.toString(16).padStart(2, '0'))}`)
    .join('');
}

/** `\u002f` or `\u002F` (behind any number of backslashes); a surrogate pair beyond the BMP. */
function jsonUnicodeEscaped(character: string): string {
  const units: string[] = [];
  for (let index = 0; index < character.length; index++)
    units.push(character.charCodeAt(index).toString(16).padStart(4, '0'));
  return units.map((unit) => `\\\\${ESCAPE_DEPTH}u${anyCaseHex(unit)}`).join('');
}

function anyCaseHex(hex: string): string {
  return hex.replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * The base64 characters that only the key's bytes decide, for each of the three positions the key can
 * start at within a 3-byte group, in both alphabets. Whatever surrounds the key (`user:`, a trailing `:`,
 * padding) changes only the characters at the edges, which the redaction of the whole run covers.
 */
function base64Cores(key: string): string[] {
  const bytes = Buffer.from(key, 'utf8');
  const cores = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = offset === 0 ? 0 : 4;
    const end = Math.floor((offset + bytes.length) / 3) * 4;
    const core = encoded.slice(start, end);
    if (core.length >= MIN_BASE64_CORE) cores.add(core);
  }
  // A key too short for a core is still found encoded on its own.
  if (cores.size === 0) cores.add(bytes.toString('base64').replace(/=+$/, ''));
  for (const core of [...cores]) cores.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  return [...cores];
}

/**
 * Redacts every base64 run that contains one of `cores`, padding included. Linear in the text: each run is
 * widened once, and the search resumes after it.
 */
function redactBase64Runs(text: string, cores: string[]): string {
  const search = new RegExp(cores.map(escapeRegExp).join('|'), 'g');
  let result = '';
  let copiedUpTo = 0;
  for (let match = search.exec(text); match !== null; match = search.exec(text)) {
    let start = match.index;
    while (start > copiedUpTo && BASE64_CHAR.test(text[start - 1])) start--;
    let end = match.index + match[0].length;
    while (end < text.length && BASE64_CHAR.test(text[end])) end++;
    for (let padding = 0; padding < 2 && text[end] === '='; padding++) end++;
    result += text.slice(copiedUpTo, start) + REDACTED;
    copiedUpTo = end;
    search.lastIndex = end;
  }
  return result + text.slice(copiedUpTo);
}
