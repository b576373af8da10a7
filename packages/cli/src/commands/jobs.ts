import type { MemoryEngine, RepairReport } from '@memory/engine';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { type Output, when } from '../output.js';
import { type CliRuntime, runCommand } from '../runtime.js';
import { positiveInt } from './parse.js';

const age = (ms: number | null): string => (ms === null ? '-' : `${Math.round(ms / 1000)}s`);

function printRepair(output: Output, report: RepairReport): void {
  const verb = report.applied ? 'changed' : 'would change (dry run; --apply to do it)';
  output.line(
    `${report.operation}: ${verb} ${report.matched} jobs${report.remaining > 0 ? `, ${report.remaining} more left` : ''}`,
  );
  if (report.jobs.length > 0)
    output.table(
      ['job', 'type', 'status'],
      report.jobs.map((j) => [j.id, j.jobType, j.status]),
    );
}

/** Health per job type, dead jobs, and what each repair would do: all read-only. */
async function overview(engine: MemoryEngine, output: Output): Promise<ExitCode> {
  const diagnostics = await engine.diagnostics();
  const dead = await engine.repair.requeueDead({ apply: false });
  const stale = await engine.repair.releaseStale({ apply: false });
  const prune = await engine.repair.prune({ apply: false });
  const deadCount = dead.matched + dead.remaining;
  if (output.json) {
    output.data({
      queue: diagnostics.queue,
      workers: diagnostics.workers,
      dryRun: { requeueDead: dead, releaseStale: stale, prune },
    });
    return deadCount > 0 ? EXIT.PROBLEMS : EXIT.OK;
  }
  output.line(output.style('bold', 'QUEUE'));
  output.table(
    ['type', 'pending', 'due', 'running', 'done', 'dead', 'oldest due', 'last error'],
    diagnostics.queue.map((q) => [
      q.jobType,
      String(q.pending),
      String(q.due),
      String(q.leased),
      String(q.completed),
      String(q.dead),
      age(q.oldestPendingAgeMs),
      q.lastError ? `${when(q.lastErrorAt)} ${q.lastError.slice(0, 60)}` : '-',
    ]),
  );
  output.line();
  output.line(output.style('bold', `DEAD JOBS (${deadCount})`));
  if (dead.jobs.length > 0)
    output.table(
      ['job', 'type'],
      dead.jobs.map((j) => [j.id, j.jobType]),
    );
  output.line();
  output.line(output.style('bold', 'REPAIRS (dry run)'));
  output.pairs([
    ['requeue-dead', `${deadCount} dead jobs would run again`],
    ['release-stale', `${stale.matched + stale.remaining} stale leases would be released`],
    ['prune', `${prune.completed} finished and ${prune.dead} dead jobs past retention would be archived`],
  ]);
  return deadCount > 0 ? EXIT.PROBLEMS : EXIT.OK;
}

interface RepairOptions {
  type?: string;
  apply?: boolean;
  limit?: number;
}

function repairFilter(options: RepairOptions) {
  return {
    apply: options.apply === true,
    ...(options.type === undefined ? {} : { jobType: options.type }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  };
}

/** `memory jobs`: queue health, dead jobs and dry-run repairs; `memory jobs <repair> [--apply]` runs one. */
export function registerJobsCommand(program: Command, runtime: CliRuntime): void {
  const jobs = program
    .command('jobs')
    .description('queue health per job type, dead jobs, and what each repair would do (exit 4 with dead jobs)')
    .action((_options: unknown, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine }) => overview(await openEngine(), output)),
    );
  const repair = (
    name: string,
    description: string,
    run: (engine: MemoryEngine, o: RepairOptions) => Promise<RepairReport>,
  ) =>
    jobs
      .command(name)
      .description(`${description} (a dry run unless --apply)`)
      .option('--type <jobType>', 'only jobs of this type')
      .option('--limit <n>', 'at most this many jobs per call', positiveInt)
      .option('--apply', 'change things instead of reporting')
      .action((options: RepairOptions, command: Command) =>
        runCommand(runtime, command, async ({ output, openEngine }) => {
          const report = await run(await openEngine(), options);
          if (output.json) output.data(report);
          else printRepair(output, report);
          return undefined;
        }),
      );
  repair('requeue-dead', 'run dead jobs again', (engine, o) => engine.repair.requeueDead(repairFilter(o)));
  repair('release-stale', 'put leases held past their lease period back to pending', (engine, o) =>
    engine.repair.releaseStale(repairFilter(o)),
  );
  repair('cancel', 'cancel pending or running jobs', (engine, o) => engine.repair.cancel(repairFilter(o)));
  jobs
    .command('prune')
    .description('archive finished and dead jobs past retention (a dry run unless --apply)')
    .option('--apply', 'change things instead of reporting')
    .action((options: { apply?: boolean }, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine }) => {
        const report = await (await openEngine()).repair.prune({ apply: options.apply === true });
        if (output.json) output.data(report);
        else
          output.line(
            `prune: ${report.applied ? 'archived' : 'would archive (dry run; --apply to do it)'} ${report.completed} finished and ${report.dead} dead jobs`,
          );
        return undefined;
      }),
    );
}
