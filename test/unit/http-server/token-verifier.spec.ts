/**
 * The OAuth token check against an issuer on loopback that may lie: a good token and the clock skew on `exp`
 * and `nbf`, discovery documents and key sets of 256 MB, an issuer that fails, keys rotated in, and key ids
 * made up by anyone. Fetches are counted at the fake issuer; time is this test's clock.
 */
import type { HttpOAuthSettings } from '../../../src/config/config-keys';
import { TokenVerifier } from '../../../src/http-server/oauth/token-verifier';
import { FakeIssuer, type IssuerDocumentMode } from '../../fakes/issuer.fake';

const AUDIENCE = 'http://127.0.0.1:8750/mcp';
/** Past what any socket buffers hold: a capped read stops the issuer long before the 256 MB it offers. */
const FAR_BELOW_THE_DOCUMENT = 32 * 1024 * 1024;

let issuer: FakeIssuer;
let clock: number;
beforeEach(async () => {
  issuer = await FakeIssuer.start();
  clock = Date.now();
});
afterEach(() => issuer.stop());

function verifier(settings: Partial<HttpOAuthSettings> = {}): TokenVerifier {
  return new TokenVerifier(
    {
      issuer: issuer.issuer,
      audience: AUDIENCE,
      caller_claim: 'sub',
      scope_prefix: 'system1:',
      clock_skew_s: 30,
      ...settings,
    },
    () => clock,
  );
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const tokenFor = (claims: Record<string, unknown> = {}, kid?: string) =>
  issuer.token({ sub: 'team-agent', scope: 'system1:decide system1:read', ...claims }, AUDIENCE, { kid });

describe('TokenVerifier', () => {
  it('takes a token of this issuer for this resource, naming the caller by its claim and granting its scopes', async () => {
    const check = await verifier().verify(await tokenFor());
    expect(check).toEqual({ ok: true, caller: 'team-agent', scopes: new Set(['system1:decide', 'system1:read']) });
    const byClient = await verifier({ caller_claim: 'client_id' }).verify(await tokenFor({ client_id: 'ci' }));
    expect(byClient).toMatchObject({ ok: true, caller: 'ci' });
  });

  it('allows clock_skew_s seconds past exp, and not a minute more', async () => {
    const check = verifier({ clock_skew_s: 30 });
    const now = seconds(clock);
    const accepted = async (exp: number) => (await check.verify(await tokenFor({ exp }))).ok;
    expect([await accepted(now - 20), await accepted(now - 90), await accepted(now - 3 * 3600)]).toEqual([
      true,
      false,
      false,
    ]);
    expect(await check.verify(await tokenFor({ exp: now - 90 }))).toEqual({ ok: false, why: 'the token has expired' });
    expect((await verifier({ clock_skew_s: 0 }).verify(await tokenFor({ exp: now - 20 }))).ok).toBe(false);
  });

  it('allows clock_skew_s seconds before nbf, and not a minute more', async () => {
    const check = verifier({ clock_skew_s: 30 });
    const now = seconds(clock);
    const accepted = async (nbf: number) => (await check.verify(await tokenFor({ nbf }))).ok;
    expect([await accepted(now + 20), await accepted(now + 90), await accepted(now + 3 * 3600)]).toEqual([
      true,
      false,
      false,
    ]);
    expect(await check.verify(await tokenFor({ nbf: now + 90 }))).toEqual({
      ok: false,
      why: 'the token is not valid yet',
    });
  });

  it.each<[string, 'discoveryMode' | 'jwksMode', IssuerDocumentMode]>([
    ['a discovery document', 'discoveryMode', 'huge'],
    ['a discovery document that declares its size', 'discoveryMode', 'huge-declared'],
    ['a key set', 'jwksMode', 'huge'],
    ['a key set that declares its size', 'jwksMode', 'huge-declared'],
  ])('stops reading %s of 256 MB at its cap, and says so', async (_, document, mode) => {
    issuer[document] = mode;
    const check = await verifier().verify(await tokenFor());
    expect(check.ok).toBe(false);
    expect(check).toMatchObject({ why: expect.stringMatching(/cannot check tokens now: .*larger than 262144 bytes/) });
    expect(issuer.bytesSent).toBeLessThan(FAR_BELOW_THE_DOCUMENT);
  });

  it('asks a failing key-set endpoint at most once per 2 s, however many tokens arrive, valid or made up', async () => {
    issuer.jwksMode = 'failing';
    const check = verifier();
    const good = await tokenFor();
    const madeUp = await Promise.all(Array.from({ length: 30 }, (_, i) => tokenFor({}, `made-up-${i}`)));
    const first = await Promise.all([good, ...madeUp].map((token) => check.verify(token)));
    expect(first.every((answer) => !answer.ok)).toBe(true);
    expect(first[0]).toMatchObject({ why: expect.stringMatching(/cannot check tokens now: .*HTTP 500/) });
    expect(issuer.fetches.jwks).toBe(1);
    for (const token of madeUp) {
      clock += 50;
      await check.verify(token);
    }
    expect(issuer.fetches.jwks).toBe(1);
    clock += 2000;
    await Promise.all(madeUp.map((token) => check.verify(token)));
    expect(issuer.fetches.jwks).toBe(2);
    issuer.jwksMode = 'ok';
    clock += 2000;
    expect((await check.verify(good)).ok).toBe(true);
    expect(issuer.fetches.jwks).toBe(3);
  });

  it('takes a key rotated in after one refetch, keeps the keys it holds while the issuer fails, and made-up key ids cost the issuer one fetch per 2 s', async () => {
    const check = verifier();
    expect((await check.verify(await tokenFor())).ok).toBe(true);
    expect(issuer.fetches.jwks).toBe(1);
    const before = await tokenFor();
    await issuer.rotate();
    const rotated = await tokenFor();
    clock += 2000;
    expect((await check.verify(rotated)).ok).toBe(true);
    expect(issuer.fetches.jwks).toBe(2);
    const madeUp = await Promise.all(Array.from({ length: 20 }, (_, i) => tokenFor({}, `made-up-${i}`)));
    const answers = await Promise.all(madeUp.map((token) => check.verify(token)));
    expect(answers).toEqual(
      Array(20).fill({ ok: false, why: 'the token is signed with a key the issuer does not publish' }),
    );
    expect(issuer.fetches.jwks).toBe(2);
    issuer.jwksMode = 'failing';
    clock += 11 * 60 * 1000;
    expect((await check.verify(before)).ok).toBe(true);
    expect(issuer.fetches.jwks).toBe(3);
  });

  it('finds the issuer once for many tokens at once, and after a failed discovery asks again only after a pause', async () => {
    issuer.discoveryMode = 'failing';
    const check = verifier();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => tokenFor()));
    const answers = await Promise.all(tokens.map((token) => check.verify(token)));
    expect(answers.every((answer) => !answer.ok)).toBe(true);
    expect(issuer.fetches.discovery).toBe(1);
    clock += 1000;
    expect((await check.verify(tokens[0])).ok).toBe(false);
    expect(issuer.fetches.discovery).toBe(1);
    issuer.discoveryMode = 'ok';
    clock += 5000;
    expect((await check.verify(tokens[0])).ok).toBe(true);
    expect(issuer.fetches.discovery).toBe(2);
  });
});
