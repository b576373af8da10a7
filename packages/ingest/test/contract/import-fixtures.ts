// Signet-export fixtures for the import tests, here and in the engine's tests (which re-export them
// from packages/engine/test/import-fixtures.ts).
import { writeFileSync } from 'node:fs';

/** A signet-export v1 record. */
export function record(n: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const messages = [
    { role: 'user', content: `Question ${n}:  keep   these   spaces\nand this second line` },
    { role: 'tool', content: `{"tool":"search","n":${n}}` },
    { role: 'assistant', content: `Answer ${n}.\n\n- bullet one\n- bullet two` },
  ];
  return {
    id: `rec-${n}`,
    source: 'claude-code',
    harness: 'claude-code',
    agent_id: 'someone-else', // must never override the target scope
    session_key: `session-${n}`,
    project: n % 2 ? 'alpha' : 'beta',
    timestamp: new Date(Date.UTC(2024, 0, 1 + (n % 28), 12)).toISOString(),
    message_count: messages.length,
    messages,
    ...overrides,
  };
}

/** Lines of a mixed export and the outcome each non-blank line must get. */
export function mixedExport(): { lines: string[]; expected: Array<[outcome: string, reason: string | null]> } {
  const rows: Array<[string, [string, string | null] | null]> = [
    [JSON.stringify(record(1)), ['imported', null]],
    ['', null],
    [JSON.stringify(record(2)), ['imported', null]],
    ['{"id": "broken", "source": ', ['rejected', 'malformed_json']],
    ['   \t  ', null],
    [JSON.stringify({ id: 'x', source: 's' }), ['rejected', 'schema_violation']],
    [JSON.stringify(record(3, { message_count: 7 })), ['rejected', 'message_count_mismatch']],
    [JSON.stringify(record(4, { messages: [], message_count: 0 })), ['rejected', 'empty_conversation']],
    [
      JSON.stringify(record(5, { messages: [{ role: 'tool', content: 'x' }], message_count: 1 })),
      ['rejected', 'empty_conversation'],
    ],
    [
      JSON.stringify(record(6, { messages: [{ role: 'user', content: 'y'.repeat(3000) }], message_count: 1 })),
      ['rejected', 'oversized_message'],
    ],
    [
      JSON.stringify(
        record(7, { messages: Array.from({ length: 12 }, () => ({ role: 'user', content: 'hi' })), message_count: 12 }),
      ),
      ['rejected', 'too_many_messages'],
    ],
    [JSON.stringify(record(8, { filler: 'z'.repeat(9000) })), ['rejected', 'oversized_record']],
    [JSON.stringify(record(1)), ['duplicate', null]],
    [JSON.stringify(record(9, { session_key: 'session-1' })), ['imported', null]],
    [JSON.stringify(record(10)), ['imported', null]],
  ];
  return { lines: rows.map((r) => r[0]), expected: rows.flatMap((r) => (r[1] ? [r[1]] : [])) };
}

/** Import limits small enough for the mixed export to hit every cap. */
export const SMALL_LIMITS = {
  maxRecordBytes: 8000,
  maxMessageBytes: 2000,
  maxMessages: 10,
  batchRecords: 2,
  inventoryBatchLines: 3,
};

export function writeExport(path: string, lines: readonly string[]): void {
  writeFileSync(path, `${lines.join('\n')}\n`);
}
