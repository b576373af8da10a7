import { Command, CommanderError } from 'commander';
import { registerCopyCommand } from './commands/copy.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerExportCommand } from './commands/export.js';
import { registerForgetCommand } from './commands/forget.js';
import { registerImportCommand } from './commands/import.js';
import { registerJobsCommand } from './commands/jobs.js';
import { registerListCommand } from './commands/list.js';
import { registerRecallCommand } from './commands/recall.js';
import { registerServeCommand } from './commands/serve.js';
import { registerShowCommand } from './commands/show.js';
import { registerStatsCommand } from './commands/stats.js';
import { registerTokensCommand } from './commands/tokens.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import type { CliRuntime } from './runtime.js';

/** What `memory --version` prints. */
export const CLI_VERSION = '0.1.0';

/** One module per command: adding a command is adding a file and a line here. */
const COMMANDS = [
  registerStatsCommand,
  registerDoctorCommand,
  registerRecallCommand,
  registerListCommand,
  registerShowCommand,
  registerForgetCommand,
  registerImportCommand,
  registerExportCommand,
  registerCopyCommand,
  registerJobsCommand,
  registerTokensCommand,
  registerServeCommand,
] as const;

/** The `memory` program, printing to the runtime's streams and never exiting the process itself. */
export function createProgram(runtime: CliRuntime): Command {
  const program = new Command('memory')
    .description(
      'Look inside an @memory store, recall, import transcripts, repair the job queue, manage tokens, serve HTTP and MCP.',
    )
    .version(CLI_VERSION)
    .option(
      '--db <file>',
      'the SQLite database, or a postgres:// URL (or MEMORY_DB)',
      runtime.env['MEMORY_DB'] ?? './memory.db',
    )
    .option('--json', 'print one JSON document for scripts', false)
    .option('--no-color', 'no colors, even on a terminal')
    .option('--embedder <name>', 'none, or offline (bundled vectors: recall gets its semantic channel)', 'none')
    .configureOutput({
      writeOut: (s) => runtime.stdout.write(s),
      writeErr: (s) => runtime.stderr.write(s),
    })
    .exitOverride()
    .showHelpAfterError('(run memory --help for usage)')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`);
  for (const register of COMMANDS) register(program, runtime);
  return program;
}

/**
 * Runs the command line (without node and the script) and resolves to the exit code.
 *
 * @example
 * ```ts
 * const code = await runCli(['stats', '--db', 'memory.db'], { stdout: process.stdout, stderr: process.stderr, env: process.env, exitCode: 0 });
 * ```
 */
export async function runCli(argv: readonly string[], runtime: CliRuntime): Promise<number> {
  try {
    await createProgram(runtime).parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    throw error;
  }
  return runtime.exitCode;
}
