import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ImportStatusView, MemoryEngine } from '@memory/engine';
import { MemoryError } from '@memory/engine';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Output } from '../output.js';
import { agentOf, type CliRuntime, type CommandContext, runCommand } from '../runtime.js';

const POLL_MS = 100;
const FINISHED = new Set(['completed', 'completed_with_rejections', 'failed', 'cancelled', 'removed', 'paused']);

/** A progress bar on an interactive stderr, nothing otherwise (piped output stays clean). */
function progressBar(output: Output): { update(view: ImportStatusView): void; stop(): void } {
  if (!output.interactive || output.json) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({
    stream: output.stderr,
    format: `importing {bar} {percentage}% | {value}/{total} lines | {imported} imported, {duplicate} duplicate, {rejected} rejected`,
    barCompleteChar: '█',
    barIncompleteChar: '░',
    hideCursor: true,
    clearOnComplete: false,
    fps: 10,
  });
  let started = false;
  return {
    update: (view) => {
      const { total, pending, imported, duplicate, rejected } = view.counters;
      const payload = { imported, duplicate, rejected };
      // Until the file is fully inventoried the total grows; the bar follows it.
      if (!started) {
        bar.start(Math.max(total, 1), total - pending, payload);
        started = true;
      } else {
        bar.setTotal(Math.max(total, 1));
        bar.update(total - pending, payload);
      }
    },
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
}

async function follow(
  engine: MemoryEngine,
  ref: { agentId: string; jobId: string },
  onView: (view: ImportStatusView) => void,
  interrupted: () => boolean,
): Promise<ImportStatusView> {
  for (;;) {
    const view = await engine.imports.status(ref);
    if (!view) throw new MemoryError('NOT_FOUND', `import ${ref.jobId} disappeared`);
    onView(view);
    if (FINISHED.has(view.status) || interrupted()) return view;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function exitFor(view: ImportStatusView, interrupted: boolean): ExitCode {
  if (interrupted) return EXIT.INTERRUPTED;
  if (view.status === 'completed') return EXIT.OK;
  if (view.status === 'completed_with_rejections') return EXIT.PROBLEMS;
  return EXIT.ERROR;
}

/** Starts an import of `fileArg`, or resumes import `resume`; either way with the file's directory allowed. */
async function begin(
  ctx: CommandContext,
  agentId: string,
  fileArg: string | undefined,
  resume: string | undefined,
): Promise<{ engine: MemoryEngine; jobId: string }> {
  if ((fileArg === undefined) === (resume === undefined))
    throw new MemoryError('INVALID_INPUT', 'give a file to import, or --resume <importId> (not both)');
  if (resume !== undefined) {
    // The engine may read only from allowed directories: learn the import's file first, then reopen with its directory.
    const probe = await ctx.openEngine();
    const view = await probe.imports.status({ agentId, jobId: resume });
    if (!view) throw new MemoryError('NOT_FOUND', `no import ${resume} in agent ${agentId}`);
    const engine = await ctx.openEngine({ allowedImportDirectories: [dirname(view.file)] });
    await engine.imports.resume({ agentId, jobId: resume });
    return { engine, jobId: resume };
  }
  const file = resolve(fileArg ?? '');
  if (!existsSync(file)) throw new MemoryError('NOT_FOUND', `no file at ${file}`);
  // The operator named this file, so its directory is where the engine may read from.
  const engine = await ctx.openEngine({ create: true, allowedImportDirectories: [dirname(file)] });
  const { jobId } = await engine.imports.start({ agentId, file });
  return { engine, jobId };
}

/**
 * `memory import <file> --agent a`: imports a signet-export v1 JSONL file into one scope with a
 * progress bar, then prints the counters. Ctrl-C pauses the import and exits 130;
 * `memory import --resume <id>` continues it from its checkpoint.
 */
export function registerImportCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('import')
    .description('import a signet-export v1 JSONL transcript file into an agent scope, with progress')
    .argument('[file]', 'the JSONL file')
    .option('--agent <id>', 'the agent scope every transcript lands in (or MEMORY_AGENT)')
    .option('--resume <importId>', 'continue a paused or failed import from its checkpoint')
    .action((fileArg: string | undefined, options: { agent?: string; resume?: string }, command: Command) =>
      runCommand(runtime, command, async (ctx) => {
        const { output, env } = ctx;
        const agentId = agentOf(options, env);
        const { engine, jobId } = await begin(ctx, agentId, fileArg, options.resume);
        let interrupted = false;
        const onSigint = (): void => {
          interrupted = true;
        };
        process.once('SIGINT', onSigint);
        const bar = progressBar(output);
        try {
          await engine.start();
          let view = await follow(engine, { agentId, jobId }, bar.update, () => interrupted);
          if (interrupted && !FINISHED.has(view.status)) view = await engine.imports.pause({ agentId, jobId });
          bar.stop();
          const c = view.counters;
          if (output.json) output.data(view);
          else {
            output.pairs([
              ['import', jobId],
              [
                'status',
                view.status === 'completed' ? output.style('green', view.status) : output.style('yellow', view.status),
              ],
              ['lines', String(c.total)],
              ['imported', String(c.imported)],
              ['duplicate', String(c.duplicate)],
              ['rejected', c.rejected > 0 ? output.style('yellow', String(c.rejected)) : '0'],
              ['pending', String(c.pending)],
              ...(view.error ? [['error', view.error] as const] : []),
            ]);
            if (view.status === 'paused')
              output.note(`continue with: memory import --resume ${jobId} --agent ${agentId}`);
          }
          return exitFor(view, interrupted);
        } finally {
          bar.stop();
          process.off('SIGINT', onSigint);
        }
      }),
    );
}
