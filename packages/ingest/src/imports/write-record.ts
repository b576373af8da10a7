import { createHash } from 'node:crypto';
import {
  findSessionKeyBySourceRecord,
  type ImportJobRow,
  insertCompletedTranscript,
  insertTurn,
  type SqlExecutor,
  transcriptExists,
} from '@memory/store';
import { renderTranscript } from '../transcripts/transcripts.js';
import { importSourceId } from './context.js';
import type { ImportRecord } from './record.js';

/**
 * Writes one imported record as a completed session transcript in the import's target scope, inside
 * the caller's transaction. Returns 'duplicate' when the scope already holds this source record.
 * A record whose session key is taken by another session gets `<key>#<record id>`.
 */
export function writeImportedRecord(
  sql: SqlExecutor,
  row: ImportJobRow,
  record: ImportRecord,
  now: number,
): { outcome: 'imported' | 'duplicate'; sessionKey: string } {
  const agentId = row.agent_id;
  const sourceRecordId = `${record.source}:${record.id}`;
  const existing = findSessionKeyBySourceRecord(sql, agentId, sourceRecordId);
  if (existing !== undefined) return { outcome: 'duplicate', sessionKey: existing };
  const sessionKey = transcriptExists(sql, agentId, record.sessionKey)
    ? `${record.sessionKey}#${record.id}`
    : record.sessionKey;
  const kept = record.messages.filter(
    (m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim().length > 0,
  );
  const content = renderTranscript(kept);
  insertCompletedTranscript(sql, {
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
  for (const [index, m] of kept.entries()) {
    insertTurn(sql, {
      agentId,
      sessionKey,
      turnKey: `m:${index}`,
      role: m.role as 'user' | 'assistant',
      content: m.content,
      at: record.timestamp,
      now,
    });
  }
  return { outcome: 'imported', sessionKey };
}
