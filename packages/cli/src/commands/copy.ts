import { resolve } from 'node:path';
import { MemoryError } from '@memory/engine';
import { openStore } from '@memory/store';
import type { SqliteCopyReport } from '@memory/store/postgres';
import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import type { Output } from '../output.js';
import { type CliRuntime, runCommand } from '../runtime.js';

/**
 * `memory copy --to postgres://...`: copies the SQLite store at `--db` into an empty PostgreSQL
 * database, all or nothing, and verifies every table's row count. Exits 4 when a count differs or
 * a table holding rows has no PostgreSQL form yet (its rows stayed behind).
 */
export function registerCopyCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('copy')
    .description('copy the SQLite store (--db) into an empty PostgreSQL database, verifying every table')
    .option('--to <url>', 'the PostgreSQL connection string (or MEMORY_POSTGRES_URL)')
    .action((options: { to?: string }, command: Command) =>
      runCommand(runtime, command, async ({ globals, env, output }) => {
        const to = options.to ?? env['MEMORY_POSTGRES_URL'];
        if (!to)
          throw new MemoryError(
            'INVALID_INPUT',
            'give the PostgreSQL database with --to <url> (or MEMORY_POSTGRES_URL)',
          );
        const path = resolve(globals.db);
        const { existsSync } = await import('node:fs');
        if (!existsSync(path)) throw new MemoryError('NOT_FOUND', `no database at ${path} (give another with --db)`);
        // Loaded here: the rest of the CLI runs without `pg` installed.
        const postgres = await import('@memory/store/postgres').catch((error: unknown) => {
          throw new MemoryError('INVALID_CONFIG', 'memory copy needs the pg package: npm install pg', { cause: error });
        });
        const from = await openStore({ path });
        try {
          const target = await postgres.openPostgresStore({ target: { connectionString: to, maxConnections: 1 } });
          try {
            const report = await postgres.copySqliteToPostgres({ from, to: target });
            printReport(output, report);
            return report.verified && report.notCopied.length === 0 ? EXIT.OK : EXIT.PROBLEMS;
          } finally {
            await target.close();
          }
        } finally {
          await from.close();
        }
      }),
    );
}

function printReport(output: Output, report: SqliteCopyReport): void {
  if (output.json) {
    output.data(report);
    return;
  }
  output.table(
    ['table', 'sqlite rows', 'postgres rows', 'status'],
    report.tables.map((t) => [
      t.table,
      String(t.sqliteRows),
      String(t.postgresRows),
      t.derived ? `${t.status} (derived)` : t.status,
    ]),
  );
  for (const { table, rows } of report.notCopied)
    output.note(`not copied: ${table} (${rows} rows) has no PostgreSQL form yet`);
  output.note(report.verified ? 'every copied table verified' : 'row counts differ: see the table above');
}
