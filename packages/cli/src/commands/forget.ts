import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { agentOf, type CliRuntime, runCommand } from '../runtime.js';

/** Who the audit trail names for a change made from this terminal. */
function operator(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** `memory forget <id> --agent a`: soft-deletes as an operator (recoverable within the recovery window). */
export function registerForgetCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('forget')
    .description('forget a memory (recoverable within the retention window); pinned ones need --force')
    .argument('<id>', 'the memory id')
    .option('--agent <id>', 'the agent scope (or MEMORY_AGENT)')
    .option('--reason <text>', 'why, for the audit trail', 'forgotten by an operator with the memory CLI')
    .option('--force', 'forget even a pinned memory')
    .action((id: string, options: { agent?: string; reason: string; force?: boolean }, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine, env }) => {
        const agentId = agentOf(options, env);
        const engine = await openEngine();
        const result = await engine.forget({
          agentId,
          id,
          reason: options.reason,
          actor: { id: operator(), type: 'operator' },
          ...(options.force ? { force: true } : {}),
        });
        if (output.json) output.data(result);
        else output.line(result.forgotten ? `forgot ${result.id}` : `${result.id} was already forgotten`);
        return undefined;
      }),
    );
}
