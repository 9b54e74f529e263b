import type { JWTVerifyGetKey } from 'jose';
import { fetchIssuerJson, IssuerFetchError } from './issuer-fetch';

type Jose = typeof import('jose');
type LocalKeySet = ReturnType<Jose['createLocalJWKSet']>;

export interface IssuerKeysTiming {
  /**
   * At most one fetch of the key set per this many milliseconds, whatever its outcome and whatever tokens
   * arrive: a token naming a key id the set lacks (a key rotated in) is the only thing that asks early, and
   * anyone can send one, valid token or not.
   */
  refetchMinMs: number;
  /** The set is read again when it is this old, even without an unknown key id. */
  maxAgeMs: number;
}

export const ISSUER_KEYS_TIMING: IssuerKeysTiming = { refetchMinMs: 2000, maxAgeMs: 10 * 60 * 1000 };

/** The key set could not be read at all (no copy to fall back on): tokens cannot be checked now. */
export class KeySetUnavailable extends Error {}

/**
 * The issuer's signing keys (its JWKS), fetched by this server with a byte cap and a deadline
 * (issuer-fetch.ts) and handed to jose as a local key set. One fetch at a time, at most one per
 * `refetchMinMs` whether the last succeeded or failed, so neither invented key ids nor an issuer that is
 * already failing make this server hammer it; a failed refetch keeps the set already held.
 */
export class IssuerKeys {
  private keys?: LocalKeySet;
  private fetchedAt = -Infinity;
  private triedAt = -Infinity;
  private lastProblem = 'not read yet';
  private inFlight?: Promise<void>;
  /** Fetches started, for the operator's metrics and for tests that count them. */
  fetches = 0;

  constructor(
    private readonly jose: Jose,
    private readonly url: URL,
    private readonly now: () => number = Date.now,
    private readonly timing: IssuerKeysTiming = ISSUER_KEYS_TIMING,
    private readonly fetchJson: (url: URL) => Promise<unknown> = (url) => fetchIssuerJson(url),
  ) {}

  /** jose's key resolver: the held set's key for this token, after one refetch when the set lacks it. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.keys || this.now() - this.fetchedAt >= this.timing.maxAgeMs) await this.refresh();
    const held = this.held();
    try {
      return await held(header, token);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      await this.refresh();
      if (this.keys === held) throw error;
      return this.held()(header, token);
    }
  };

  private held(): LocalKeySet {
    if (!this.keys) throw new KeySetUnavailable(`the issuer's key set could not be read (${this.lastProblem})`);
    return this.keys;
  }

  /** Joins the fetch in flight, or starts one when the window since the last attempt has passed. */
  private refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.now() - this.triedAt < this.timing.refetchMinMs) return Promise.resolve();
    this.triedAt = this.now();
    this.fetches++;
    this.inFlight = this.fetchKeys().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<void> {
    try {
      const document = await this.fetchJson(this.url);
      this.keys = this.jose.createLocalJWKSet(document as Parameters<Jose['createLocalJWKSet']>[0]);
      this.fetchedAt = this.now();
    } catch (error) {
      this.lastProblem =
        error instanceof IssuerFetchError ? `${this.url.href}: ${error.message}` : `${this.url.href}: not a key set`;
    }
  }
}
