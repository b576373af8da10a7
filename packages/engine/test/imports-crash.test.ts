import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../src/index.js';
import { generatedExport } from './import-fixtures.js';

const root = join(import.meta.dirname, '..', '..', '..');

function evidence(path: string) {
  const db = new Database(path, { readonly: true });
  const dump = {
    sessions: db
      .prepare(
        'SELECT session_key, content, content_hash, harness, project, created_at, completed_at, source_record_id FROM session_transcripts ORDER BY session_key',
      )
      .all(),
    turns: db
      .prepare(
        'SELECT session_key, turn_key, role, content, at FROM session_transcript_turns ORDER BY session_key, turn_key',
      )
      .all(),
    records: db
      .prepare(
        'SELECT line_no, byte_offset, byte_length, raw_hash, outcome, reason, record_id, session_key, message_count FROM import_records ORDER BY line_no',
      )
      .all(),
  };
  const importId = (db.prepare('SELECT id FROM import_jobs ORDER BY created_at LIMIT 1').get() as { id: string }).id;
  db.close();
  return { ...dump, importId };
}

describe('import crash recovery', () => {
  it('a process killed with SIGKILL mid-import resumes to exactly the state of an uninterrupted import', async () => {
    const work = mkdtempSync(join(tmpdir(), 'memory-import-crash-'));
    const file = join(work, 'export.jsonl');
    generatedExport(file, 400, 6);

    // Reference: the same import, uninterrupted.
    const referencePath = join(work, 'reference.db');
    const reference = await createMemoryEngine({
      database: { path: referencePath },
      config: { imports: { batchRecords: 2, inventoryBatchLines: 20 } },
    });
    const ref = await reference.imports.start({ agentId: 'target', file });
    await reference.runDue();
    expect((await reference.imports.status({ jobId: ref.jobId }))?.counters).toEqual({
      total: 400,
      imported: 400,
      duplicate: 0,
      rejected: 0,
      pending: 0,
    });
    await reference.close();

    // The victim: killed once it has committed some, but not all, records.
    const crashPath = join(work, 'crash.db');
    const child = spawn(
      process.execPath,
      [
        '--conditions=@memory/source',
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures', 'import-child.ts'),
        crashPath,
        file,
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const killedAt = await new Promise<number>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        for (const m of buffer.matchAll(/IMPORTED (\d+)/g)) {
          const n = Number(m[1]);
          if (n >= 20) {
            child.kill('SIGKILL');
            resolve(n);
            return;
          }
        }
        if (buffer.includes('DONE')) reject(new Error('the import finished before it could be killed'));
      });
      child.on('exit', (code, signal) => signal !== 'SIGKILL' && reject(new Error(`child exited ${code}`)));
    });
    await new Promise((resolve) => child.on('exit', resolve));
    expect(killedAt).toBeLessThan(400);

    // The survivor opens the same file later (its lease has expired) and finishes the job.
    const survivor = await createMemoryEngine({
      database: { path: crashPath },
      clock: createManualClock(Date.now() + 3_600_000),
      config: { imports: { batchRecords: 2, inventoryBatchLines: 20 } },
    });
    const midway = evidence(crashPath);
    expect(midway.records.filter((r) => (r as { outcome: string }).outcome === 'imported').length).toBeGreaterThan(0);
    const run = await survivor.runDue();
    expect(run.reaped).toBe(1);
    const status = await survivor.imports.status({ jobId: midway.importId });
    expect(status).toMatchObject({
      status: 'completed',
      counters: { total: 400, imported: 400, duplicate: 0, rejected: 0, pending: 0 },
    });
    await survivor.close();
    const { importId: _a, ...crashed } = evidence(crashPath);
    const { importId: _b, ...uninterrupted } = evidence(referencePath);
    expect(crashed).toEqual(uninterrupted);
  }, 120_000);
});
