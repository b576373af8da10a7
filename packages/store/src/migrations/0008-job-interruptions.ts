import type { Migration } from './migration.js';

// Interruptions are counted apart from attempts. An expired lease (the process holding the job died
// or hung) gives its attempt back and counts one interruption; a job is dead-lettered for
// interruptions only past `max_interruptions`, and never when that is NULL (resumable jobs, such as
// imports and document ingests, that checkpoint their progress).
//
// Existing jobs keep today's bound (as many interruptions as attempts), except the engine's two
// resumable job types. Imports and documents that an interruption-killed job left stranded (still
// `queued`/`running`, or mid-ingest, with their job dead) are marked `failed`, so `imports.resume`
// and `documents.retry` can pick them up.
export const jobInterruptions: Migration = {
  version: 8,
  name: 'job-interruptions',
  statements: [
    'ALTER TABLE memory_jobs ADD COLUMN interruptions INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE memory_jobs ADD COLUMN max_interruptions INTEGER',
    `UPDATE memory_jobs SET max_interruptions = max_attempts
     WHERE job_type NOT IN ('transcript_import', 'document_ingest')`,
    `UPDATE import_jobs SET status = 'failed', error = 'its import job died (' || coalesce(
       (SELECT j.error FROM memory_jobs j WHERE j.id = import_jobs.job_id), 'no error recorded') || '); resume it with imports.resume'
     WHERE status IN ('queued', 'running')
       AND job_id IN (SELECT id FROM memory_jobs WHERE status = 'dead')`,
    `UPDATE documents SET status = 'failed', error = 'its ingest job died; retry it with documents.retry'
     WHERE status IN ('queued', 'extracting', 'chunking', 'embedding', 'indexing')
       AND EXISTS (SELECT 1 FROM memory_jobs j WHERE j.document_id = documents.id AND j.status = 'dead')
       AND NOT EXISTS (SELECT 1 FROM memory_jobs j WHERE j.document_id = documents.id AND j.status IN ('pending', 'leased'))`,
  ],
};
