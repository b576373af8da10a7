import type { EngineDiagnostics } from '@memory/engine';
import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import { type CliRuntime, runCommand } from '../runtime.js';

type Level = 'ok' | 'warn' | 'fail';

interface Check {
  readonly name: string;
  readonly level: Level;
  readonly detail: string;
}

const HOUR = 3_600_000;

/** The checks, from diagnostics and dry-run repairs (nothing is changed). */
function checks(d: EngineDiagnostics, stale: number): Check[] {
  const { vector, embedder, llm } = d.providers;
  const dead = d.queue.filter((q) => q.dead > 0);
  const late = d.queue.filter((q) => (q.oldestPendingAgeMs ?? 0) > HOUR);
  return [
    { name: 'database', level: 'ok', detail: 'opened and migrated' },
    vector.available
      ? { name: 'vectors', level: 'ok', detail: `sqlite-vec ${vector.version}` }
      : { name: 'vectors', level: 'warn', detail: `sqlite-vec not loaded: ${vector.reason}` },
    embedder.available
      ? { name: 'embedder', level: 'ok', detail: `${embedder.model}` }
      : { name: 'embedder', level: 'warn', detail: 'none chosen (--embedder offline adds the semantic channel)' },
    llm.available
      ? { name: 'llm', level: 'ok', detail: 'configured' }
      : { name: 'llm', level: 'ok', detail: 'none (hints and Dreaming stay idle)' },
    dead.length > 0
      ? {
          name: 'dead jobs',
          level: 'fail',
          detail: `${dead.map((q) => `${q.dead} ${q.jobType}`).join(', ')}; see \`memory jobs\`, then \`memory jobs requeue-dead --apply\``,
        }
      : { name: 'dead jobs', level: 'ok', detail: 'none' },
    stale > 0
      ? { name: 'stale leases', level: 'fail', detail: `${stale}; \`memory jobs release-stale --apply\` frees them` }
      : { name: 'stale leases', level: 'ok', detail: 'none' },
    late.length > 0
      ? {
          name: 'queue delay',
          level: 'warn',
          detail: `due work older than an hour: ${late.map((q) => q.jobType).join(', ')} (is a worker running?)`,
        }
      : { name: 'queue delay', level: 'ok', detail: 'no due work older than an hour' },
  ];
}

/** `memory doctor`: what works and what needs attention; exit 4 when a check fails. */
export function registerDoctorCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('doctor')
    .description('check the store: database, vector support, providers, dead jobs, stale leases, queue delay')
    .action((_options: unknown, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine }) => {
        const engine = await openEngine();
        const diagnostics = await engine.diagnostics();
        const stale = await engine.repair.releaseStale({ apply: false });
        const results = checks(diagnostics, stale.matched + stale.remaining);
        const failed = results.some((c) => c.level === 'fail');
        if (output.json) output.data({ healthy: !failed, checks: results });
        else {
          const mark = {
            ok: output.style('green', 'ok  '),
            warn: output.style('yellow', 'warn'),
            fail: output.style('red', 'FAIL'),
          };
          const width = Math.max(...results.map((c) => c.name.length));
          for (const c of results) output.line(`${mark[c.level]}  ${c.name.padEnd(width)}  ${c.detail}`);
        }
        return failed ? EXIT.PROBLEMS : EXIT.OK;
      }),
    );
}
