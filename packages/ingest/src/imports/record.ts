import { isValidSessionKey, type MemoryConfig, parseTime, timeProblem, versionProblem } from '@memory/core';
import { z } from 'zod';

/** Why a line was rejected. Stable codes, listed with each record outcome. */
export type RejectReason =
  | 'malformed_json'
  | 'schema_violation'
  | 'message_count_mismatch'
  | 'oversized_record'
  | 'oversized_message'
  | 'too_many_messages'
  | 'empty_conversation'
  /** The record's session key breaks the one rule for keys (see `isValidSessionKey`). */
  | 'invalid_session_key'
  /** The key and every fallback for it (`<key>#<id>`, `<key>#<source>:<id>`) are taken or too long. */
  | 'session_key_conflict'
  /** The database refused this record's write (a constraint); the rest of its batch went in. */
  | 'write_failed'
  /** The record names a `version` of the format this reader does not know (signet-export v1 only). */
  | 'unsupported_version'
  /** An `engine.export` record whose id another agent scope of this file already holds. */
  | 'id_conflict'
  /** An `engine.export` registry category beyond the scope's cap on categories (1,000). */
  | 'limit_reached';

const recordSchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  source: z.string().min(1).max(256),
  harness: z.string().max(256).nullish(),
  agent_id: z.string().nullish(),
  session_key: z.string(),
  project: z.string().max(256).nullish(),
  timestamp: z.union([z.string().min(1), z.number()]),
  message_count: z.number().int().min(0),
  messages: z.array(z.looseObject({ role: z.string().min(1).max(64), content: z.string() })),
});

export interface ImportRecord {
  readonly id: string;
  readonly source: string;
  readonly harness: string | null;
  readonly sessionKey: string;
  readonly project: string | null;
  readonly timestamp: number;
  readonly messageCount: number;
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }>;
}

export type ParsedRecord =
  | { ok: true; record: ImportRecord }
  | { ok: false; reason: RejectReason; detail: string; id?: string };

/** Parses and checks one line. Content is kept byte-exact; the embedded agent_id is ignored. */
export function parseRecord(line: string, limits: MemoryConfig['imports']): ParsedRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, reason: 'malformed_json', detail: error instanceof Error ? error.message : 'invalid JSON' };
  }
  return parseRecordValue(value, limits);
}

/** {@link parseRecord} for a line already parsed as JSON. */
export function parseRecordValue(value: unknown, limits: MemoryConfig['imports']): ParsedRecord {
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) {
    const id =
      typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string'
        ? (value as { id: string }).id
        : undefined;
    return {
      ok: false,
      reason: 'schema_violation',
      detail: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      ...(id ? { id } : {}),
    };
  }
  const r = parsed.data;
  const fail = (reason: RejectReason, detail: string): ParsedRecord => ({ ok: false, reason, detail, id: r.id });
  const version = versionProblem(r['version'], [1]);
  if (version) return fail('unsupported_version', version);
  if (!isValidSessionKey(r.session_key))
    return fail('invalid_session_key', 'session_key: 1–512 characters, no control characters or lone surrogates');
  // The one rule for times: epoch milliseconds or ISO-8601, within years 1–9999.
  const timestamp = parseTime(r.timestamp);
  if (timestamp === undefined)
    return fail('schema_violation', `timestamp: ${timeProblem(r.timestamp) ?? 'not a valid time'}`);
  if (r.messages.length > limits.maxMessages)
    return fail('too_many_messages', `${r.messages.length} messages (at most ${limits.maxMessages})`);
  const big = r.messages.findIndex((m) => Buffer.byteLength(m.content, 'utf8') > limits.maxMessageBytes);
  if (big !== -1) return fail('oversized_message', `message ${big} is over ${limits.maxMessageBytes} bytes`);
  if (r.message_count !== r.messages.length)
    return fail('message_count_mismatch', `message_count ${r.message_count} but ${r.messages.length} messages`);
  if (!r.messages.some((m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim().length > 0)) {
    return fail('empty_conversation', 'no user or assistant message with content');
  }
  return {
    ok: true,
    record: {
      id: r.id,
      source: r.source,
      harness: r.harness ?? null,
      sessionKey: r.session_key,
      project: r.project ?? null,
      timestamp,
      messageCount: r.message_count,
      messages: r.messages.map((m) => ({ role: m.role, content: m.content })),
    },
  };
}
