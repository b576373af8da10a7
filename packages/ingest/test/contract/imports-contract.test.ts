import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, isMemoryError, type MemoryConfig } from '@memory/core';
import type { Job } from '@memory/queue';
import { rankScopedTextProgram } from '@memory/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TRANSCRIPT_IMPORT_JOB } from '../../src/imports/context.js';
import { createImports, type Imports } from '../../src/imports/imports.js';
import { createTranscriptSchemas } from '../../src/transcripts/inputs.js';
import { createTranscripts } from '../../src/transcripts/transcripts.js';
import { BACKENDS, type ContractSetup, T0 } from './backends.js';
import { mixedExport, record, SMALL_LIMITS, writeExport } from './import-fixtures.js';

// One suite of import behaviour on SQLite, PGlite and a real PostgreSQL server: start (the import
// and its run commit together), inventory and settling in batches, duplicates on replay,
// pause/resume/cancel, the dead-letter hook, and removing a source (tombstones, search index).

const directory = realpathSync(mkdtempSync(join(tmpdir(), 'memory-import-contract-')));
let files = 0;
const exportFile = (lines: readonly string[]): string => {
  const file = join(directory, `export-${++files}.jsonl`);
  writeExport(file, lines);
  return file;
};

const config: MemoryConfig = {
  ...defaultConfig,
  imports: { ...defaultConfig.imports, ...SMALL_LIMITS, allowedDirectories: [directory] },
};

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip !== undefined)(`imports on ${backend.name}`, () => {
    let setup: ContractSetup;
    let imports: Imports;
    beforeAll(() => backend.beforeAll(), 120_000);
    afterAll(() => backend.afterAll());
    afterEach(() => backend.afterEach());

    const open = async () => {
      setup = await backend.setup(config);
      imports = createImports({ store: setup.store, queue: setup.queue, config });
      const transcripts = createTranscripts({ store: setup.store, config, schemas: createTranscriptSchemas(config) });
      return { imports, transcripts };
    };

    /** Leases and runs import jobs until none is due; returns each run's result. */
    const runJobs = async (max = 50): Promise<unknown[]> => {
      const results: unknown[] = [];
      for (let i = 0; i < max; i++) {
        const job = await setup.queue.lease([TRANSCRIPT_IMPORT_JOB], 'worker');
        if (!job?.leaseToken) return results;
        const result = await imports.run(job, {
          signal: new AbortController().signal,
          deadline: setup.clock.now() + 60_000,
        });
        await setup.queue.complete(job.id, job.leaseToken, result);
        results.push(result);
      }
      throw new Error('import jobs did not run out');
    };
    const jobStatus = async (id: string) => (await setup.queue.get(id))?.status;

    it('settles every non-blank line once, in batches, with counters that reconcile', async () => {
      const { transcripts } = await open();
      const { lines, expected } = mixedExport();
      const { jobId } = await imports.start({ agentId: 'target', file: exportFile(lines) });
      const queued = await imports.status({ agentId: 'target', jobId });
      expect(queued).toMatchObject({ status: 'queued', counters: { total: 0 } });
      expect(await imports.status({ agentId: 'elsewhere', jobId })).toBeUndefined();
      const notFound = await imports.records({ agentId: 'elsewhere', jobId }).catch((e: unknown) => e);
      expect(isMemoryError(notFound, 'NOT_FOUND')).toBe(true);
      await runJobs();
      const status = await imports.status({ agentId: 'target', jobId });
      expect(status).toMatchObject({ status: 'completed_with_rejections', inventoried: true, completedAt: T0 });
      expect(status?.counters).toEqual({ total: 13, imported: 4, duplicate: 1, rejected: 8, pending: 0 });
      const records = await imports.records({ agentId: 'target', jobId });
      expect(records.map((r) => [r.outcome, r.reason])).toEqual(expected);
      expect(
        (await imports.records({ agentId: 'target', jobId, outcome: 'imported', afterLine: 0 })).map(
          (r) => r.sessionKey,
        ),
      ).toEqual(['session-2', 'session-1#rec-9', 'session-10']);
      // The evidence: completed sessions with the record's turns and time, searchable, in the target scope only.
      const session = await transcripts.get({ agentId: 'target', sessionKey: 'session-1' });
      expect(session).toMatchObject({ completedAt: Date.UTC(2024, 0, 2, 12), project: 'alpha', turnCount: 2 });
      expect((await transcripts.search({ agentId: 'target', query: 'bullet' })).length).toBe(4);
      expect(await transcripts.search({ agentId: 'someone-else', query: 'bullet' })).toEqual([]);

      // A replay of the same file is all duplicates (and rejections), no new evidence.
      const replay = await imports.start({ agentId: 'target', file: exportFile(lines) });
      await runJobs();
      expect((await imports.status({ agentId: 'target', jobId: replay.jobId }))?.counters).toMatchObject({
        imported: 0,
        duplicate: 5,
      });
      expect((await transcripts.list({ agentId: 'target' })).length).toBe(4);
    });

    it('pauses, refuses a wrong transition, resumes from its checkpoint with a new run, and cancels', async () => {
      await open();
      const file = exportFile(Array.from({ length: 6 }, (_, i) => JSON.stringify(record(i + 1))));
      const { jobId } = await imports.start({ agentId: 'target', file });
      const first = (await setup.sql<{ job_id: string }>('SELECT job_id FROM import_jobs'))[0]?.job_id;
      expect(await jobStatus(first as string)).toBe('pending');
      expect(await imports.pause({ agentId: 'target', jobId })).toMatchObject({ status: 'paused' });
      const twice = await imports.pause({ agentId: 'target', jobId }).catch((e: unknown) => e);
      expect(isMemoryError(twice, 'CONFLICT')).toBe(true);
      // The paused import's run does nothing.
      expect(await runJobs()).toEqual([{ skipped: 'paused' }]);
      expect(await imports.resume({ agentId: 'target', jobId })).toMatchObject({ status: 'queued' });
      const second = (await setup.sql<{ job_id: string }>('SELECT job_id FROM import_jobs'))[0]?.job_id;
      expect(second).not.toBe(first);
      expect(await jobStatus(second as string)).toBe('pending');
      await runJobs();
      expect(await imports.status({ agentId: 'target', jobId })).toMatchObject({
        status: 'completed',
        counters: { imported: 6, total: 6 },
      });
      // Cancel: a queued import stops, and its pending run is cancelled with it.
      const other = await imports.start({ agentId: 'target', file: exportFile([JSON.stringify(record(40))]) });
      const otherJob = (
        await setup.sql<{ job_id: string }>('SELECT job_id FROM import_jobs WHERE id = ?', other.jobId)
      )[0];
      expect(await imports.cancel({ agentId: 'target', jobId: other.jobId })).toMatchObject({ status: 'cancelled' });
      expect(await jobStatus(otherJob?.job_id as string)).toBe('cancelled');
      expect(await runJobs()).toEqual([]);
    });

    it('marks the import of a dead run failed (the queue’s dead-letter hook), resumable', async () => {
      await open();
      const { jobId } = await imports.start({ agentId: 'target', file: exportFile([JSON.stringify(record(1))]) });
      const job = (await setup.sql<{ job_id: string }>('SELECT job_id FROM import_jobs'))[0];
      const dead = { id: job?.job_id, error: 'the process died' } as Job;
      const { sqlite, store } = setup;
      if (sqlite) sqlite.write((sql) => imports.runDied(sql, dead));
      else await store.db.write(() => imports.runDiedProgram(dead));
      expect(await imports.status({ agentId: 'target', jobId })).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('the process died'),
      });
      await imports.resume({ agentId: 'target', jobId });
      await runJobs();
      expect(await imports.status({ agentId: 'target', jobId })).toMatchObject({ status: 'completed' });
    });

    it('removes what an import brought in, keeping tombstones, and leaves other evidence alone', async () => {
      const { transcripts } = await open();
      await transcripts.append({
        agentId: 'target',
        sessionKey: 'own',
        turns: [{ role: 'user', content: 'bullet points please' }],
      });
      const { jobId } = await imports.start({
        agentId: 'target',
        file: exportFile([1, 2, 3].map((n) => JSON.stringify(record(n)))),
      });
      await runJobs();
      expect((await transcripts.search({ agentId: 'target', query: 'bullet', completedOnly: false })).length).toBe(4);
      setup.clock.advance(1000);
      expect(await imports.removeSource({ agentId: 'target', jobId })).toEqual({ removedSessions: 3 });
      expect(await imports.status({ agentId: 'target', jobId })).toMatchObject({ status: 'removed' });
      expect((await transcripts.list({ agentId: 'target' })).map((s) => s.sessionKey)).toEqual(['own']);
      const hits = await transcripts.search({ agentId: 'target', query: 'bullet', completedOnly: false });
      expect(hits.map((h) => h.sessionKey)).toEqual(['own']);
      const tombstones = await setup.sql<{ source_record_id: string; removed_at: number }>(
        'SELECT source_record_id, removed_at FROM import_tombstones ORDER BY source_record_id',
      );
      expect(tombstones.map((t) => [t.source_record_id, Number(t.removed_at)])).toEqual(
        [1, 2, 3].map((n) => [`claude-code:rec-${n}`, T0 + 1000]),
      );
      // Another scope cannot remove it; removing again removes nothing more.
      const other = await imports.removeSource({ agentId: 'elsewhere', jobId }).catch((e: unknown) => e);
      expect(isMemoryError(other, 'NOT_FOUND')).toBe(true);
      expect(await imports.removeSource({ agentId: 'target', jobId })).toEqual({ removedSessions: 0 });
    });

    it('rejects alone a record the database refuses; the rest of its batch goes in', async () => {
      const { transcripts } = await open();
      // PostgreSQL's text cannot hold NUL (SQLSTATE 22021); SQLite's can.
      const nul = record(2, { messages: [{ role: 'user', content: 'a\u0000b' }], message_count: 1 });
      const { jobId } = await imports.start({
        agentId: 'target',
        file: exportFile([record(1), nul, record(3)].map((r) => JSON.stringify(r))),
      });
      await runJobs();
      const records = await imports.records({ agentId: 'target', jobId });
      expect(records.map((r) => [r.outcome, r.reason])).toEqual([
        ['imported', null],
        setup.sqlite ? ['imported', null] : ['rejected', 'write_failed'],
        ['imported', null],
      ]);
      const keys = (await transcripts.list({ agentId: 'target' })).map((s) => s.sessionKey).sort();
      expect(keys).toEqual(setup.sqlite ? ['session-1', 'session-2', 'session-3'] : ['session-1', 'session-3']);
      // The refused record left nothing behind: no session row, no turns, no postings.
      const turns = await setup.sql<{ n: number }>(
        "SELECT count(*) AS n FROM session_transcript_turns WHERE session_key = 'session-2'",
      );
      expect(Number(turns[0]?.n)).toBe(setup.sqlite ? 1 : 0);
    });

    it('imports engine.export transcript and memory records', async () => {
      const { transcripts } = await open();
      const lines = [
        { kind: 'header', format: 'memory-export', version: 1 },
        {
          kind: 'transcript',
          session_key: 'exported',
          content: 'user: tea please',
          harness: null,
          project: 'p',
          content_hash: null,
          source_id: null,
          source_record_id: null,
          source_meta_json: null,
          created_at: T0 - 10,
          updated_at: T0 - 5,
          completed_at: T0 - 5,
          turns: [{ turn_key: 'k1', role: 'user', content: 'tea please', at: T0 - 10, created_at: T0 - 10 }],
        },
        { kind: 'transcript', session_key: 'bad', turns: [], no_such_column: 1 },
        {
          kind: 'memory',
          id: 'm1',
          content: 'Alice drinks tea',
          type: 'fact',
          created_at: T0,
          updated_at: T0,
          history: [],
          mentions: [],
        },
        { kind: 'footer', records: 3 },
      ].map((l) => JSON.stringify(l));
      const { jobId } = await imports.start({ agentId: 'target', file: exportFile(lines) });
      await runJobs();
      const records = await imports.records({ agentId: 'target', jobId });
      expect(records.map((r) => [r.outcome, r.reason])).toEqual([
        ['imported', null],
        ['imported', null],
        ['rejected', 'schema_violation'],
        ['imported', null],
        ['imported', null],
      ]);
      expect(await transcripts.get({ agentId: 'target', sessionKey: 'exported' })).toMatchObject({
        project: 'p',
        completedAt: T0 - 5,
        turns: [{ role: 'user', content: 'tea please', at: T0 - 10 }],
      });
      expect((await transcripts.search({ agentId: 'target', query: 'tea' })).map((h) => h.sessionKey)).toEqual([
        'exported',
      ]);
      // The memory is in the scope's text index on both dialects (a trigger on SQLite, the import's
      // program on PostgreSQL): one document of the memory corpus, found by its words.
      const ranked = await setup.store.db.read(() => rankScopedTextProgram('memory', 'target', ['alice', 'tea']));
      expect(ranked.rows.length).toBe(1);
    });
  });
}
