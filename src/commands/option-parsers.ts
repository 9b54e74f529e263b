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

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`must be a whole number, got ${value}`);
  return n;
}
