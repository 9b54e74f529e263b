import { createHash, timingSafeEqual } from 'node:crypto';

/** Fixed-length digests, so the comparison takes the same time whatever was sent. */
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * A secret a caller must present, compared in constant time over digests of both (the lengths never leak).
 * The secret itself is kept only as its digest, so nothing here can print it.
 */
export class SecretCheck {
  private readonly expected: Buffer;

  constructor(secret: string) {
    this.expected = digest(secret);
  }

  matches(sent: string | undefined): boolean {
    if (sent === undefined) return false;
    return timingSafeEqual(digest(sent), this.expected);
  }
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}
