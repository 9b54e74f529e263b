import { InvalidArgumentError } from 'commander';

/**
 * Parsers for numeric flags, shared so every command words a bad value the same way. commander reports an
 * InvalidArgumentError as a usage error naming the option, without a stack trace.
 */
export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError(`must be a positive number, got ${value}`);
  return n;
}

export function fraction(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError(`must be in [0, 1], got ${value}`);
  return n;
}

/** A probability that can be neither never nor always, such as a risk. */
export function openFraction(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError(`must be between 0 and 1 (both excluded), got ${value}`);
  return n;
}

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`must be a whole number, got ${value}`);
  return n;
}

/** A whole number from `low` to `high`, both included. */
export function wholeNumberIn(value: string, low: number, high: number): number {
  const n = wholeNumber(value);
  if (n < low || n > high)
    throw new InvalidArgumentError(`must be a whole number from ${low} to ${high}, got ${value}`);
  return n;
}

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  kib: 2 ** 10,
  mb: 1e6,
  mib: 2 ** 20,
  gb: 1e9,
  gib: 2 ** 30,
  tb: 1e12,
  tib: 2 ** 40,
};

/** A size in bytes: `2GiB`, `500MB`, `1.5 gb` or a plain number of bytes. */
export function byteSize(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = match ? BYTE_UNITS[match[2].toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!(bytes > 0) || !Number.isSafeInteger(bytes))
    throw new InvalidArgumentError(`must be a size such as 2GiB, 500MB or a number of bytes, got ${value}`);
  return bytes;
}
