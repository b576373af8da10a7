import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isMemoryError, type MemoryEngine, MemoryError } from '@memory/engine';
import { isPostgresUrl, openEngineForHost, parseEmbedderChoice } from '@memory/mcp/host';
import type { Command } from 'commander';
import { EXIT, type ExitCode, exitCodeFor } from './exit-codes.js';
import { createOutput, type Output, type Sink } from './output.js';

/** What the process gives the CLI: its streams and environment (tests pass their own). */
export interface CliRuntime {
  readonly stdout: Sink;
  readonly stderr: Sink;
  readonly env: NodeJS.ProcessEnv;
  /** The clock for relative times (`--expires 30d`, "expired"). @default Date.now */
  readonly now?: () => number;
  /** Set by the command that ran. */
  exitCode: ExitCode;
}

/** The options every command accepts. */
export interface GlobalOptions {
  readonly db: string;
  readonly json: boolean;
  readonly color: boolean;
  readonly embedder: string;
}

/** How a command opens the engine. */
export interface OpenOptions {
  /** Create the database file when missing (import, serve). @default false: a missing file is NOT_FOUND */
  readonly create?: boolean;
  /** Directories the engine may import files from. */
  readonly allowedImportDirectories?: readonly string[];
}

/** What a command body gets: its printer, the global options, and the engine on demand. */
export interface CommandContext {
  readonly output: Output;
  readonly globals: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  /** Opens the engine on `--db`; it is closed when the command ends. */
  openEngine(options?: OpenOptions): Promise<MemoryEngine>;
}

/** A command's body: its exit code, or nothing for success. */
export type CommandBody = (ctx: CommandContext) => Promise<ExitCode | undefined>;

/** The agent scope from `--agent` or MEMORY_AGENT. */
export function agentOf(options: { agent?: string }, env: NodeJS.ProcessEnv): string {
  const agent = options.agent ?? env['MEMORY_AGENT'];
  if (!agent) throw new MemoryError('INVALID_INPUT', 'give the agent scope with --agent <id> (or MEMORY_AGENT)');
  return agent;
}

/**
 * Runs one command: resolves the global options, prints errors as `memory: CODE: message` (or a
 * JSON error with `--json`), closes any engine it opened, and records the exit code.
 */
export async function runCommand(runtime: CliRuntime, command: Command, body: CommandBody): Promise<void> {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const output = createOutput({
    json: globals.json,
    color: globals.color,
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    env: runtime.env,
  });
  const engines: MemoryEngine[] = [];
  const ctx: CommandContext = {
    output,
    globals,
    env: runtime.env,
    openEngine: async (options = {}) => {
      const db = globals.db === ':memory:' || isPostgresUrl(globals.db) ? globals.db : resolve(globals.db);
      if (db !== ':memory:' && !isPostgresUrl(db) && !options.create && !existsSync(db))
        throw new MemoryError('NOT_FOUND', `no database at ${db} (give another with --db or MEMORY_DB)`);
      const engine = await openEngineForHost({
        db,
        embedder: parseEmbedderChoice(globals.embedder),
        ...(options.allowedImportDirectories ? { allowedImportDirectories: options.allowedImportDirectories } : {}),
      });
      engines.push(engine);
      return engine;
    },
  };
  try {
    runtime.exitCode = (await body(ctx)) ?? EXIT.OK;
  } catch (error) {
    runtime.exitCode = exitCodeFor(error);
    const code = isMemoryError(error) ? error.code : 'INTERNAL';
    const message = isMemoryError(error) ? error.message : String(error);
    if (output.json) output.data({ error: { code, message } });
    else output.note(`${output.style('red', 'memory:')} ${code}: ${message}`);
  } finally {
    for (const engine of engines) await engine.close();
  }
}
