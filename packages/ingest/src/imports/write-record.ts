import { createHash } from 'node:crypto';
import { isValidSessionKey } from '@memory/core';
import {
  type Dialect,
  findSessionKeyBySourceRecordProgram,
  type ImportJobRow,
  insertCompletedTranscriptProgram,
  insertTurnsProgram,
  type Program,
  transcriptExistsProgram,
} from '@memory/store';
import { renderTranscript } from '../transcripts/transcripts.js';
import { importSourceId } from './context.js';
import type { ImportRecord } from './record.js';

export type WrittenRecord =
  | { readonly outcome: 'imported' | 'duplicate'; readonly sessionKey: string }
  | { readonly outcome: 'rejected'; readonly reason: 'session_key_conflict' };

/**
 * The session keys a record may take, in order: its own, then `<key>#<id>`, then
 * `<key>#<source>:<id>` (unique per source record, since a scope holds each source record once).
 * Only keys that pass the one rule for keys are offered, so every imported session can be read back.
 */
export function candidateKeys(record: ImportRecord): string[] {
  const { sessionKey: key, id, source } = record;
  return [key, `${key}#${id}`, `${key}#${source}:${id}`].filter(isValidSessionKey);
}

/**
 * Writes one imported record as a completed session transcript in the import's target scope, inside
 * the caller's transaction. Returns 'duplicate' when the scope already holds this source record.
 * A record takes the first free key of {@link candidateKeys}: the same file imported into the same
 * scope gets the same keys, however often it was interrupted. A record with no free key is rejected
 * (`session_key_conflict`) instead of failing its batch.
 */
export function* writeImportedRecordProgram(
  dialect: Dialect,
  row: ImportJobRow,
  record: ImportRecord,
  now: number,
): Program<WrittenRecord> {
  const agentId = row.agent_id;
  const sourceRecordId = `${record.source}:${record.id}`;
  const existing = yield* findSessionKeyBySourceRecordProgram(agentId, sourceRecordId);
  if (existing !== undefined) return { outcome: 'duplicate', sessionKey: existing };
  let sessionKey: string | undefined;
  for (const key of candidateKeys(record)) {
    if (yield* transcriptExistsProgram(agentId, key)) continue;
    sessionKey = key;
    break;
  }
  if (sessionKey === undefined) return { outcome: 'rejected', reason: 'session_key_conflict' };
  const kept = record.messages.filter(
    (m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim().length > 0,
  );
  const content = renderTranscript(kept);
  yield* insertCompletedTranscriptProgram({
    agentId,
    sessionKey,
    content,
    contentHash: createHash('sha256').update(content).digest('hex'),
    harness: record.harness,
    project: record.project,
    sourceId: importSourceId(row.id),
    sourceRecordId,
    sourceMetaJson: JSON.stringify({
      source: record.source,
      recordId: record.id,
      sessionKey: record.sessionKey,
      messageCount: record.messageCount,
      importedAt: now,
    }),
    at: record.timestamp,
  });
  yield* insertTurnsProgram(
    dialect,
    agentId,
    sessionKey,
    kept.map((m, index) => ({
      turnKey: `m:${index}`,
      role: m.role as 'user' | 'assistant',
      content: m.content,
      at: record.timestamp,
    })),
    now,
  );
  return { outcome: 'imported', sessionKey };
}
