import { parseInput } from '@memory/core';
import {
  deleteSourceTranscripts,
  listSourceTranscripts,
  markDerivedForReview,
  tombstoneImportedTranscripts,
  updateImportJob,
} from '@memory/store';
import { type ImportsContext, importSourceId } from './context.js';
import { refSchema } from './inputs.js';
import { requireImport } from './set-status.js';

/**
 * Purges what an import brought in (sessions, turns and their search index), keeping a tombstone
 * per removed record (source id and time, no content). Stops the import first if it is running.
 * Knowledge distilled from those conversations is marked for review before they go.
 */
export function removeImportSource(ctx: ImportsContext, input: unknown): { removedSessions: number } {
  const { store, queue } = ctx;
  const { jobId, agentId } = parseInput(refSchema, input, 'imports.removeSource');
  return store.write((sql) => {
    const row = requireImport(sql, agentId, jobId);
    const now = store.clock.now();
    const sourceId = importSourceId(jobId);
    if (row.job_id) queue.cancel({ ids: [row.job_id], apply: true });
    tombstoneImportedTranscripts(sql, { agentId: row.agent_id, importId: jobId, sourceId, now });
    const refs = listSourceTranscripts(sql, row.agent_id, sourceId).flatMap((s) => [
      `transcript:${s.session_key}`,
      ...(s.source_record_id ? [`import:${s.source_record_id}`] : []),
    ]);
    markDerivedForReview(sql, row.agent_id, refs, `its evidence was removed with import ${jobId}`, now, () =>
      store.ids.next(),
    );
    const removed = deleteSourceTranscripts(sql, row.agent_id, sourceId);
    updateImportJob(sql, jobId, { status: 'removed' }, now);
    return { removedSessions: removed };
  });
}
