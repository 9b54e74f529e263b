/**
 * Engine text loses the key in every form an engine would echo it: as sent, base64 (standard and url-safe,
 * padded or not, alone or inside `user:key` / `key:`), percent-encoded and JSON-escaped.
 */
import { EngineHttpClient, safeEngineText } from '../../../src/providers/http/engine-http.client';
import { scrubSecrets } from '../../../src/providers/http/secret-scrub';
import { ECHO_ENCODINGS, echoedKey, FakeEngine, type FakeReply, type RecordedRequest } from '../../fakes/fake-engine';

/** A key with the characters that encodings change (`/`, `+`, `=`, `~`), and no `sk-` prefix for the catch-all. */
const KEY = 'cfTOKEN/with+slash=and~more_42';

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** Each form, and what would remain readable of the key if it leaked. */
const FORMS: [name: string, echoed: string][] = [
  ['as sent', KEY],
  ['base64, padded', base64(KEY)],
  ['base64, unpadded', base64(KEY).replace(/=+$/, '')],
  ['base64url', Buffer.from(KEY).toString('base64url')],
  ['base64url, padded', base64(KEY).replace(/\+/g, '-').replace(/\//g, '_')],
  ['a Basic header of user:key', `Basic ${base64(`api:${KEY}`)}`],
  ['a Basic header of an e-mail and the key', `Basic ${base64(`someone@example.com:${KEY}`)}`],
  ['base64 of key:', base64(`${KEY}:`)],
  ['base64 of user:key:extra', base64(`u:${KEY}:x`)],
  ['percent-encoded', encodeURIComponent(KEY)],
  ['percent-encoded, lower-case hex', encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())],
  ['every byte percent-encoded', [...Buffer.from(KEY)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')],
  ['inside a percent-encoded user:key', encodeURIComponent(`api:${KEY}`)],
  ['JSON-escaped with \\/', JSON.stringify(KEY).slice(1, -1).replace(/\//g, '\\/')],
  ['JSON \\u escapes', KEY.replace(/[^A-Za-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)],
  ['a JSON-escaped request echo', JSON.stringify(JSON.stringify({ api_key: KEY }).replace(/\//g, '\\/'))],
];

/** Pieces of the key long enough to mean something: none may survive. */
const PIECES = ['cfTOKEN', 'with+slash', 'and~more', 'slash%3Dand', 'slash=and'];

describe('scrubbing the key from engine text', () => {
  it.each(FORMS)('removes the key written %s', (_name, echoed) => {
    const safe = safeEngineText(`invalid credentials: ${echoed} (request 42)`, [KEY]);
    expect(safe).toMatch(/^invalid credentials: .*\[redacted\].* \(request 42\)$/);
    expect(safe).not.toContain(echoed);
    for (const piece of PIECES) expect(safe).not.toContain(piece);
    expect(safe).not.toContain(base64(KEY).slice(8, 24));
  });

  it('keeps text that carries no key, Basic and base64-looking words included', () => {
    const text = 'Basic authentication required: model jev-1.14.0 needs a key (see docs/keys.md, error 10000)';
    expect(safeEngineText(text, [KEY])).toBe(text);
  });

  it('removes every key given, and ignores an empty or unset one', () => {
    const other = 'another-SECRET-value-1234';
    const safe = safeEngineText(`a ${base64(KEY)} b ${encodeURIComponent(other)} c`, [KEY, other, '', undefined]);
    expect(safe).toBe('a [redacted] b [redacted] c');
  });

  it.each([
    ['backslashes', '\\'.repeat(1 << 20)],
    ['percent-encoded percent signs', '%25'.repeat(350_000)],
    ['one base64 run', 'A'.repeat(1 << 20)],
  ])('scrubs a megabyte of %s whole (the engine body cap), leaving it as it was', (_name, text) => {
    expect(scrubSecrets(text, [KEY])).toBe(text);
  });

  it('cuts long text only after scrubbing, so no half key is left at the cut', () => {
    const safe = safeEngineText(`${'x'.repeat(180)} ${base64(KEY)}`, [KEY]);
    expect(safe).toBe(`${'x'.repeat(180)} [redacted]`);
  });
});

/** An engine whose error bodies are FastAPI's `{"detail": ...}`, echoing the key in each encoding. */
class EchoFake extends FakeEngine {
  readonly name = 'echo';
  protected readonly decisionPaths = ['/decide'];
  protected answer(_request: RecordedRequest): FakeReply {
    return { status: 200, body: { ok: true } };
  }
  protected errorBody(status: number): unknown {
    return { detail: `HTTP ${status}` };
  }
}

describe('the engine client, against an engine that echoes the key', () => {
  const client = new EngineHttpClient();
  const fake = new EchoFake();
  let base: URL;
  beforeAll(async () => (base = await fake.start()));
  afterAll(() => fake.stop());

  it.each(ECHO_ENCODINGS)('shows the 401 without the key echoed as %s', async (encoding) => {
    fake.fault = `echo-key-${encoding}`;
    const error = await client
      .request({
        method: 'POST',
        url: new URL('/decide', base),
        body: {},
        headers: { authorization: `Bearer ${KEY}` },
        signal: AbortSignal.timeout(5000),
        allowRemote: false,
        secrets: [KEY],
      })
      .then(
        () => new Error('the engine answered'),
        (caught: Error) => caught,
      );
    expect(error.message).toMatch(/^HTTP 401 from 127\.0\.0\.1:\d+: invalid credentials: .*\[redacted\]/);
    expect(error.message).not.toContain(echoedKey(KEY, encoding));
    for (const piece of PIECES) expect(error.message).not.toContain(piece);
  });
});
