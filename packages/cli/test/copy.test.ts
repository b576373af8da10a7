import { join } from 'node:path';
import { openPostgresStore } from '@memory/store/postgres';
import { all, perDialect, raw } from '@memory/store/sql';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresTestDatabase, postgresTestServer } from '../../store/test/support/postgres.js';
import { runCli } from '../src/index.js';
import type { CliRuntime } from '../src/runtime.js';
import { tempDir, withEngine } from './helpers.js';

// `memory copy --to <url>`: the SQLite file at --db into an empty PostgreSQL database, on the run's
// real server, with every table's count verified, and refusals for a missing target or a full one.

const tmp = tempDir();
const db = join(tmp.dir, 'memory.db');
afterAll(() => tmp.remove());

const memory = (...args: string[]) => memoryOn(db, ...args);

async function memoryOn(file: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    ({
      write: (chunk: string) => {
        append(chunk);
        return true;
      },
    }) as CliRuntime['stdout'];
  const runtime: CliRuntime = {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    env: {},
    exitCode: 0,
  };
  const code = await runCli(['--db', file, ...args], runtime);
  return { code, stdout, stderr };
}

const server = await postgresTestServer();

describe.skipIf(!server.available)(`memory copy${server.available ? '' : ` (skipped: ${server.reason})`}`, () => {
  it('copies the store, prints per-table counts, and refuses a target that already holds rows', async () => {
    await withEngine(db, async (engine) => {
      const tea = await engine.remember({ agentId: 'alice', content: 'Alice prefers green tea' });
      await engine.modify({ agentId: 'alice', id: tea.id, content: 'Alice prefers green tea with honey', reason: 'r' });
      await engine.remember({ agentId: 'bob', content: 'Bob prefers black coffee' });
      const gone = await engine.remember({ agentId: 'bob', content: 'Bob once lived in Oslo' });
      await engine.forget({ agentId: 'bob', id: gone.id, reason: 'moved' });
    });
    const target = await postgresTestDatabase();
    try {
      const copied = await memory('--json', 'copy', '--to', target.connectionString);
      const report = JSON.parse(copied.stdout) as {
        tables: Array<{ table: string; sqliteRows: number; postgresRows: number; status: string }>;
        notCopied: Array<{ table: string; rows: number }>;
        verified: boolean;
      };
      expect(report.verified).toBe(true);
      expect(report.tables.find((t) => t.table === 'memories')).toMatchObject({
        sqliteRows: 3,
        postgresRows: 3,
        status: 'copied',
      });
      expect(report.tables.find((t) => t.table === 'memory_history')?.postgresRows).toBeGreaterThanOrEqual(4);
      // Rows left behind (tables with no PostgreSQL form yet) make it exit 4, never 0.
      expect(copied.code).toBe(report.notCopied.length === 0 ? 0 : 4);

      const store = await openPostgresStore({ target: { connectionString: target.connectionString } });
      try {
        const rows = await store.read(() =>
          all<{ agent_id: string; content: string; is_deleted: number }>(
            perDialect(
              raw('SELECT agent_id, content, is_deleted FROM memories ORDER BY content'),
              raw('SELECT agent_id, content, is_deleted FROM memories ORDER BY content'),
            ),
          ),
        );
        expect(rows).toEqual([
          { agent_id: 'alice', content: 'Alice prefers green tea with honey', is_deleted: 0 },
          { agent_id: 'bob', content: 'Bob once lived in Oslo', is_deleted: 1 },
          { agent_id: 'bob', content: 'Bob prefers black coffee', is_deleted: 0 },
        ]);
      } finally {
        await store.close();
      }

      // The copied database serves the CLI itself: --db takes the postgres:// URL.
      const repair = await memoryOn(target.connectionString, '--json', 'jobs', 'requeue-dead');
      expect(repair.code).toBe(0);
      expect(JSON.parse(repair.stdout)).toMatchObject({ applied: false });

      const again = await memory('copy', '--to', target.connectionString);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/CONFLICT/);
    } finally {
      await target.drop();
    }
  });

  it('prints the table for people', async () => {
    const target = await postgresTestDatabase();
    try {
      const copied = await memory('--no-color', 'copy', '--to', target.connectionString);
      expect(copied.stdout).toMatch(/memories\s+3\s+3\s+copied/);
      expect(copied.stderr).toMatch(/every copied table verified/);
    } finally {
      await target.drop();
    }
  });
});

describe('memory copy without a target or a source', () => {
  it('exits 2 without --to, and 3 without the SQLite file', async () => {
    const noTarget = await memory('copy');
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toMatch(/--to <url>/);
    const noSource = await memoryOn(join(tmp.dir, 'missing.db'), 'copy', '--to', 'postgres://x@127.0.0.1:1/x');
    expect(noSource.code).toBe(3);
    expect(noSource.stderr).toMatch(/no database at/);
  });
});
