import { createManualClock } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/migrations/index.js';
import { runMigrations } from '../src/migrations/runner.js';

const clock = createManualClock(Date.UTC(2026, 0, 1));

function job(db: Database.Database, id: string, type: string, status: string, extra: { documentId?: string } = {}) {
  db.prepare(
    `INSERT INTO memory_jobs (id, job_type, status, payload, attempts, max_attempts, run_at, error, document_id, created_at, updated_at)
     VALUES (?, ?, ?, '{}', 3, 3, 0, ?, ?, 0, 0)`,
  ).run(id, type, status, status === 'dead' ? 'lease expired on the final attempt' : null, extra.documentId ?? null);
}

function document(db: Database.Database, id: string, status: string) {
  db.prepare(
    `INSERT INTO documents (id, agent_id, source_type, status, created_at, updated_at) VALUES (?, 'a', 'text', ?, 0, 0)`,
  ).run(id, status);
}

describe('migration 8 (job interruptions)', () => {
  it('bounds existing jobs as before, frees resumable ones, and fails what dead jobs left stranded', () => {
    const db = new Database(':memory:');
    runMigrations(db, MIGRATIONS.slice(0, 7), clock);
    job(db, 'host', 'send_digest', 'pending');
    job(db, 'run-dead', 'transcript_import', 'dead');
    job(db, 'run-live', 'transcript_import', 'pending');
    const insertImport = db.prepare(
      "INSERT INTO import_jobs (id, agent_id, job_id, status, source_path, created_at, updated_at) VALUES (?, 'a', ?, ?, '/x', 0, 0)",
    );
    insertImport.run('stranded', 'run-dead', 'running');
    insertImport.run('paused', 'run-dead', 'paused');
    insertImport.run('alive', 'run-live', 'running');
    document(db, 'doc-stranded', 'embedding');
    job(db, 'ingest-dead', 'document_ingest', 'dead', { documentId: 'doc-stranded' });
    document(db, 'doc-retrying', 'embedding');
    job(db, 'ingest-dead-2', 'document_ingest', 'dead', { documentId: 'doc-retrying' });
    job(db, 'ingest-live', 'document_ingest', 'pending', { documentId: 'doc-retrying' });
    document(db, 'doc-done', 'done');
    job(db, 'ingest-dead-3', 'document_ingest', 'dead', { documentId: 'doc-done' });

    expect(runMigrations(db, MIGRATIONS, clock).find((m) => m.version === 8)).toMatchObject({ status: 'applied' });
    const jobs = db.prepare('SELECT id, interruptions, max_interruptions FROM memory_jobs ORDER BY id').all();
    expect(jobs).toContainEqual({ id: 'host', interruptions: 0, max_interruptions: 3 });
    expect(jobs).toContainEqual({ id: 'run-live', interruptions: 0, max_interruptions: null });
    expect(jobs).toContainEqual({ id: 'ingest-live', interruptions: 0, max_interruptions: null });
    const imports = db.prepare('SELECT id, status, error FROM import_jobs ORDER BY id').all();
    expect(imports).toEqual([
      { id: 'alive', status: 'running', error: null },
      { id: 'paused', status: 'paused', error: null },
      {
        id: 'stranded',
        status: 'failed',
        error: expect.stringMatching(/job died \(lease expired on the final attempt\); resume it/),
      },
    ]);
    const documents = db.prepare('SELECT id, status FROM documents ORDER BY id').all();
    expect(documents).toEqual([
      { id: 'doc-done', status: 'done' },
      { id: 'doc-retrying', status: 'embedding' },
      { id: 'doc-stranded', status: 'failed' },
    ]);
  });
});
