import type { HttpOAuthSettings } from '../../config/config-keys';
import { type AuthorizationServerMetadata, discover } from './authorization-server';
import { IssuerKeys, KeySetUnavailable } from './issuer-keys';

/** A verified access token: who it names and what it grants; or why it was refused, in words for the 401. */
export type TokenCheck = { ok: true; caller: string; scopes: ReadonlySet<string> } | { ok: false; why: string };

/** After a failed discovery, wait this long before asking the issuer again (one per period, whatever the load). */
const DISCOVERY_RETRY_MS = 5000;

type Jose = typeof import('jose');

/** jose's error codes, in words a client can act on (never the token's content). */
const REFUSALS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JWKS_NO_MATCHING_KEY: 'the token is signed with a key the issuer does not publish',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the token signature does not verify',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the token is signed with an algorithm this server does not take',
};
const CLAIM_REFUSALS: Record<string, string> = {
  iss: 'the token was issued by another authorization server',
  aud: 'the token was issued for another resource (audience)',
  nbf: 'the token is not valid yet',
  exp: 'the token has no expiry',
};

/**
 * JWT access tokens checked as an OAuth 2.1 resource server does (RFC 9068, RFC 8707): signed by a key of the
 * issuer's JWKS (found from its metadata, held by issuer-keys.ts: re-read when a token names a key id it lacks,
 * at most once per window), from this
 * issuer, for this resource (`aud`), within `exp`/`nbf` give or take the clock skew. jose is loaded on first use,
 * so a server without OAuth never loads it.
 */
export class TokenVerifier {
  private jose?: Promise<Jose>;
  private keys?: Promise<IssuerKeys>;
  private discoveryFailedAt = -Infinity;

  constructor(
    private readonly settings: HttpOAuthSettings,
    private readonly now: () => number = Date.now,
    private readonly find: (issuer: string) => Promise<AuthorizationServerMetadata> = (issuer) => discover(issuer),
    private readonly keysAt: (jose: Jose, jwksUri: URL) => IssuerKeys = (jose, jwksUri) =>
      new IssuerKeys(jose, jwksUri, now),
  ) {}

  async verify(token: string): Promise<TokenCheck> {
    if (token.split('.').length !== 3) return { ok: false, why: 'the token is not a JWT access token' };
    let keys: IssuerKeys;
    let jose: Jose;
    try {
      [jose, keys] = await Promise.all([(this.jose ??= import('jose')), this.keySet()]);
    } catch (error) {
      return cannotCheck(error instanceof Error ? error.message : String(error));
    }
    try {
      const { payload } = await jose.jwtVerify(token, keys.getKey, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        clockTolerance: this.settings.clock_skew_s,
        requiredClaims: ['exp'],
        currentDate: new Date(this.now()),
      });
      const caller = payload[this.settings.caller_claim];
      if (typeof caller !== 'string' || caller === '')
        return { ok: false, why: `the token has no ${this.settings.caller_claim} claim naming the caller` };
      return { ok: true, caller, scopes: scopesOf(payload) };
    } catch (error) {
      if (error instanceof KeySetUnavailable) return cannotCheck(error.message);
      const { code, claim } = error as { code?: string; claim?: string };
      const why =
        (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && claim && CLAIM_REFUSALS[claim]) ||
        (code && REFUSALS[code]) ||
        'the token is not valid';
      return { ok: false, why };
    }
  }

  /** The issuer's key set, found once; a failed discovery is retried after a pause, not per request. */
  private keySet(): Promise<IssuerKeys> {
    if (this.keys) return this.keys;
    if (this.now() - this.discoveryFailedAt < DISCOVERY_RETRY_MS)
      return Promise.reject(new Error('the authorization server could not be reached a moment ago'));
    const keys = Promise.all([(this.jose ??= import('jose')), this.find(this.settings.issuer)]).then(
      ([jose, metadata]) => this.keysAt(jose, new URL(metadata.jwksUri)),
    );
    this.keys = keys;
    keys.catch(() => {
      this.keys = undefined;
      this.discoveryFailedAt = this.now();
    });
    return keys;
  }
}

/** A token refused because the issuer's keys are out of reach, not because of the token. */
const cannotCheck = (why: string): TokenCheck => ({ ok: false, why: `this server cannot check tokens now: ${why}` });

/** `scope` (RFC 9068: space-separated) or `scp` (Entra ID and Okta: a list, or a string). */
function scopesOf(payload: Record<string, unknown>): ReadonlySet<string> {
  const raw = payload.scope ?? payload.scp;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(' ') : [];
  return new Set(list.filter((scope): scope is string => typeof scope === 'string' && scope !== ''));
}
