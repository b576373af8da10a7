import { createHash } from 'node:crypto';
import { type ImportJobRow, insertTurn, raw, type SqlExecutor } from '@memory/store';
import { renderTranscript } from '../transcripts/transcripts.js';
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
  const sourceRecordId = `${record.source}:${record.id}`;
  const existing = sql.get<{ session_key: string }>(
    raw(
      'SELECT session_key FROM session_transcripts WHERE agent_id = ? AND source_record_id = ?',
      row.agent_id,
      sourceRecordId,
    ),
  );
  if (existing) return { outcome: 'duplicate', sessionKey: existing.session_key };
  const taken = (key: string) =>
    sql.get(raw('SELECT 1 AS x FROM session_transcripts WHERE agent_id = ? AND session_key = ?', row.agent_id, key)) !==
    undefined;
  const sessionKey = taken(record.sessionKey) ? `${record.sessionKey}#${record.id}` : record.sessionKey;
  const kept = record.messages.filter(
    (m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim().length > 0,
  );
  const content = renderTranscript(kept);
  sql.run(
    raw(
      `INSERT INTO session_transcripts (agent_id, session_key, content, harness, project, content_hash, source_id, source_record_id, source_meta_json, created_at, updated_at, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.agent_id,
      sessionKey,
      content,
      record.harness,
      record.project,
      createHash('sha256').update(content).digest('hex'),
      `import:${row.id}`,
      sourceRecordId,
      JSON.stringify({
        source: record.source,
        recordId: record.id,
        sessionKey: record.sessionKey,
        messageCount: record.messageCount,
        importedAt: now,
      }),
      record.timestamp,
      record.timestamp,
      record.timestamp,
    ),
  );
  for (const [index, m] of kept.entries()) {
    insertTurn(sql, {
      agentId: row.agent_id,
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
