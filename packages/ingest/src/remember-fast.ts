import { contentProblem, identifierProblem, labelProblem, type MemoryConfig, utf8Length } from '@memory/core';
import { MEMORY_TYPES } from '@memory/store';
import type { ParsedRemember } from './inputs.js';

// The remember schema's result for the common input, without the schema: a plain object of string,
// number and boolean fields only (agentId, content, type, importance, confidence, category, project,
// who, why, pinned, conflict, sessionId, requestId), each checked by the same rules the schema
// applies (core's `identifierProblem`, `contentProblem`, `labelProblem`, the same bounds). Anything
// else (another field, a value of another type, anything the rules refuse, an `undefined` value)
// gets `undefined`, and the caller parses with the schema, which gives the same result or the error.
// Validating a memory with zod cost ~10 µs of CPU per input in rememberMany (issue 20 item 5).

type Check = (value: unknown, config: MemoryConfig) => boolean;

const label =
  (max: number): Check =>
  (value) =>
    typeof value === 'string' && value.length >= 1 && value.length <= max && labelProblem(value) === undefined;
const unit: Check = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
const flag: Check = (value) => typeof value === 'boolean';

/** The fields taken, in the schema's order (the parsed object keeps that order). */
const FIELDS: ReadonlyArray<readonly [keyof ParsedRemember, Check]> = [
  [
    'agentId',
    (value) =>
      typeof value === 'string' &&
      value.length >= 1 &&
      value.length <= 256 &&
      value.trim() === value &&
      identifierProblem(value) === undefined,
  ],
  [
    'content',
    (value, config) =>
      typeof value === 'string' &&
      contentProblem(value) === undefined &&
      utf8Length(value) <= config.limits.maxContentBytes,
  ],
  ['type', (value) => typeof value === 'string' && (MEMORY_TYPES as readonly string[]).includes(value)],
  ['importance', unit],
  ['confidence', unit],
  ['category', label(128)],
  ['project', label(256)],
  ['who', label(256)],
  ['why', (value) => typeof value === 'string' && value.length <= 4096],
  ['pinned', flag],
  ['conflict', flag],
  ['sessionId', label(256)],
  ['requestId', label(256)],
];
const KNOWN: ReadonlySet<string> = new Set(FIELDS.map(([key]) => key));

/** The parsed remember input, or undefined when only the schema can tell (see the module note). */
export function parseRememberFast(input: unknown, config: MemoryConfig): ParsedRemember | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const prototype = Object.getPrototypeOf(input);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const record = input as Record<string, unknown>;
  let count = 0;
  for (const key in record) {
    if (!Object.hasOwn(record, key) || !KNOWN.has(key)) return undefined;
    count++;
  }
  if (Object.getOwnPropertySymbols(record).length > 0) return undefined;
  const parsed: Record<string, unknown> = {};
  let seen = 0;
  for (const [key, check] of FIELDS) {
    if (!Object.hasOwn(record, key)) {
      if (key === 'type') parsed.type = 'fact';
      else if (key === 'agentId' || key === 'content') return undefined;
      continue;
    }
    const value = record[key];
    if (!check(value, config)) return undefined;
    parsed[key] = value;
    seen++;
  }
  return seen === count ? (parsed as ParsedRemember) : undefined;
}
