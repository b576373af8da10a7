import { parseInput } from '@memory/core';
import {
  deleteSourceTranscriptsProgram,
  listSourceTranscriptsProgram,
  markDerivedForReviewProgram,
  tombstoneImportedTranscriptsProgram,
  turnScopeLockKeys,
  updateImportJobProgram,
} from '@memory/store';
import { cancelRun, type ImportsContext, importSourceId } from './context.js';
import { refSchema } from './inputs.js';
import { requireImport } from './set-status.js';

/**
 * Purges what an import brought in (sessions, turns and their search index), keeping a tombstone
 * per removed record (source id and time, no content), in one transaction. Knowledge distilled from
 * those conversations is marked for review (`review_due` attention) before they go. A run
 * still working on the import stops at its next batch boundary; its queue job is cancelled after.
 */
export async function removeImportSource(ctx: ImportsContext, input: unknown): Promise<{ removedSessions: number }> {
  const { store } = ctx;
  const { jobId, agentId } = parseInput(refSchema, input, 'imports.removeSource');
  const { removed, runJob } = await store.db.write(
    function* () {
      const row = yield* requireImport(agentId, jobId);
      const now = store.clock.now();
      const sourceId = importSourceId(jobId);
      yield* tombstoneImportedTranscriptsProgram({ agentId: row.agent_id, importId: jobId, sourceId, now });
      const refs = (yield* listSourceTranscriptsProgram(row.agent_id, sourceId)).flatMap((s) => [
        `transcript:${s.session_key}`,
        ...(s.source_record_id ? [`import:${s.source_record_id}`] : []),
      ]);
      const reason = `its evidence was removed with import ${jobId}`;
      yield* markDerivedForReviewProgram(row.agent_id, refs, reason, now, () => store.ids.next());
      const removed = yield* deleteSourceTranscriptsProgram(store.dialect, row.agent_id, sourceId);
      yield* updateImportJobProgram(jobId, { status: 'removed' }, now);
      return { removed, runJob: row.job_id };
    },
    { lockKeys: turnScopeLockKeys(agentId) },
  );
  await cancelRun(ctx, runJob);
  return { removedSessions: removed };
}
