import { InvalidArgumentError } from 'commander';

/** A commander argument parser for counts and limits. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
