import { statSync } from 'node:fs';
import { isPostgresUrl, scopeStats } from '@memory/mcp/host';
import type { Command } from 'commander';
import { type CliRuntime, runCommand } from '../runtime.js';

/** Bytes on disk of the database and its WAL. */
function fileSize(path: string): number {
  let bytes = 0;
  for (const file of [path, `${path}-wal`]) {
    try {
      bytes += statSync(file).size;
    } catch {
      // A missing WAL is normal after a clean close.
    }
  }
  return bytes;
}

const mib = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/** A PostgreSQL URL without its password, for printing. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** `memory stats [--agent a]`: the store's size, providers and queue; with an agent, that scope's counts. */
export function registerStatsCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('stats')
    .description("the store at a glance: size, vector support, queue totals; with --agent, that scope's counts")
    .option('--agent <id>', 'also count this agent scope (sessions, documents, MEMORY.md head)')
    .action((options: { agent?: string }, command: Command) =>
      runCommand(runtime, command, async ({ output, globals, openEngine, env }) => {
        const engine = await openEngine();
        const diagnostics = await engine.diagnostics();
        const agent = options.agent ?? env['MEMORY_AGENT'];
        const scope = agent ? await scopeStats(engine, agent) : undefined;
        const totals = { pending: 0, leased: 0, dead: 0, completed: 0 };
        for (const q of diagnostics.queue) {
          totals.pending += q.pending;
          totals.leased += q.leased;
          totals.dead += q.dead;
          totals.completed += q.completed;
        }
        const { vector, embedder, llm } = diagnostics.providers;
        const postgres = isPostgresUrl(globals.db);
        // A PostgreSQL database's size is the server's business: only a SQLite file is measured.
        const bytes = postgres ? undefined : fileSize(globals.db);
        const where = postgres ? redacted(globals.db) : globals.db;
        if (output.json) {
          output.data({
            database: postgres ? { url: where } : { path: where, bytes },
            providers: diagnostics.providers,
            queue: totals,
            scope,
          });
          return undefined;
        }
        output.pairs([
          ['database', bytes === undefined ? where : `${where} (${mib(bytes)})`],
          [
            'vectors',
            vector.available
              ? postgres
                ? vector.version
                : `sqlite-vec ${vector.version}`
              : output.style('yellow', vector.reason),
          ],
          ['embedder', embedder.available ? `${embedder.model} (${embedder.dimensions} dims)` : 'none'],
          ['llm', llm.available ? 'configured' : 'none'],
          [
            'queue',
            `${totals.pending} pending, ${totals.leased} running, ${totals.completed} done, ` +
              (totals.dead > 0 ? output.style('red', `${totals.dead} dead`) : '0 dead'),
          ],
        ]);
        if (scope) {
          const docs = Object.entries(scope.documents.byStatus).map(([s, n]) => `${n} ${s}`);
          output.line();
          output.line(output.style('bold', `agent ${scope.agentId}`));
          output.pairs([
            [
              'sessions',
              `${scope.sessions.total}${scope.sessions.truncated ? '+' : ''} (${scope.sessions.open} open, ${scope.sessions.turns} turns)`,
            ],
            ['documents', `${scope.documents.total}${docs.length > 0 ? ` (${docs.join(', ')})` : ''}`],
            [
              'MEMORY.md',
              scope.memoryHead
                ? `revision ${scope.memoryHead.revision}, ${scope.memoryHead.entries} entries`
                : 'not written yet',
            ],
          ]);
        }
        return undefined;
      }),
    );
}
