import { parseInput } from '@memory/core';
import {
  deleteSourceTranscriptsProgram,
  listSourceTranscriptsProgram,
  markDerivedForReview,
  type Program,
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
 * those conversations is marked for review before they go (on SQLite; see `markForReview`). A run
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
      yield* markForReview(ctx, row.agent_id, refs, `its evidence was removed with import ${jobId}`, now);
      const removed = yield* deleteSourceTranscriptsProgram(store.dialect, row.agent_id, sourceId);
      yield* updateImportJobProgram(jobId, { status: 'removed' }, now);
      return { removed, runJob: row.job_id };
    },
    { lockKeys: turnScopeLockKeys(agentId) },
  );
  await cancelRun(ctx, runJob);
  return { removedSessions: removed };
}

/**
 * Opens `review_due` attention for knowledge that cited the removed sessions, in the caller's write.
 * On SQLite through the store's synchronous writer (nested in the running transaction). On
 * PostgreSQL nothing is marked yet: Dreaming's tables (attention, provenance, claims) have no
 * PostgreSQL form on this branch, so there is no derived knowledge to mark either.
 */
function* markForReview(
  ctx: ImportsContext,
  agentId: string,
  refs: readonly string[],
  reason: string,
  now: number,
): Program<void> {
  const sqlite = ctx.sqlite;
  if (sqlite) sqlite.write((sql) => markDerivedForReview(sql, agentId, refs, reason, now, () => ctx.store.ids.next()));
}
