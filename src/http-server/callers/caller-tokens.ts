import { SecretCheck } from '../../common/http/secret-check';
import type { Env } from '../../config/paths';

/** The caller `SYSTEM1_HTTP_TOKEN` names: the single-token setup keeps working as one caller. */
export const DEFAULT_CALLER = 'default';
export const HTTP_TOKEN_VARIABLE = 'SYSTEM1_HTTP_TOKEN';
/** `SYSTEM1_HTTP_TOKEN_ALICE` is the token of the caller `alice`. */
const NAMED_TOKEN = /^SYSTEM1_HTTP_TOKEN_([A-Z0-9][A-Z0-9_]{0,63})$/;

/**
 * The static tokens of serve-http's named callers, from the environment only (never the file or a flag).
 * A token is kept only as its digest; `identify` compares a sent token with every caller's, in constant
 * time and without stopping at a match, so neither a token nor which caller holds it leaks by timing.
 */
export class CallerTokens {
  private constructor(private readonly checks: ReadonlyArray<readonly [string, SecretCheck]>) {}

  /** The callers' tokens and the problems with them (blank, a name taken twice, one token for two callers). */
  static fromEnv(env: Env): { tokens: CallerTokens; problems: string[] } {
    const problems: string[] = [];
    const byName = new Map<string, { variable: string; token: string }>();
    for (const [variable, raw] of Object.entries(env)) {
      const name = variable === HTTP_TOKEN_VARIABLE ? DEFAULT_CALLER : NAMED_TOKEN.exec(variable)?.[1]?.toLowerCase();
      if (name === undefined || raw === undefined) continue;
      // Set but blank is a mistake (an empty secret from a template or a script), not a request to turn the check off.
      if (raw.trim() === '') {
        problems.push(
          `${variable} is set but blank; give it a token, ` +
            `or unset it${name === DEFAULT_CALLER ? ' to run on loopback without one' : ''}`,
        );
        continue;
      }
      const taken = byName.get(name);
      if (taken) {
        problems.push(`${taken.variable} and ${variable} both name the caller ${JSON.stringify(name)}; keep one`);
        continue;
      }
      byName.set(name, { variable, token: raw.trim() });
    }
    const seen = new Map<string, string>();
    for (const { variable, token } of byName.values()) {
      const other = seen.get(token);
      if (other)
        problems.push(
          `${other} and ${variable} hold the same token: give each caller its own, so one can be revoked alone`,
        );
      seen.set(token, variable);
    }
    const checks = [...byName].map(([name, { token }]) => [name, new SecretCheck(token)] as const);
    return { tokens: new CallerTokens(checks), problems };
  }

  /** No token is configured: on loopback the server then answers without one. */
  get none(): boolean {
    return this.checks.length === 0;
  }

  get names(): string[] {
    return this.checks.map(([name]) => name);
  }

  /** The caller whose token was sent, or undefined. */
  identify(sent: string | undefined): string | undefined {
    let found: string | undefined;
    for (const [name, check] of this.checks) {
      if (check.matches(sent) && found === undefined) found = name;
    }
    return found;
  }
}
