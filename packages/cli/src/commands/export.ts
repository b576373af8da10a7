import { once } from 'node:events';
import type { Command } from 'commander';
import { agentOf, type CliRuntime, runCommand } from '../runtime.js';

/**
 * `memory export --agent a > scope.jsonl`: the scope as `memory-export` JSONL on stdout (the format
 * `memory import` and `engine.imports` read back). Lines are written as the engine yields them,
 * waiting for the pipe to drain, so a large scope never sits in memory.
 */
export function registerExportCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('export')
    .description('write one agent scope as memory-export JSONL to stdout (memory import reads it back)')
    .option('--agent <id>', 'the agent scope (or MEMORY_AGENT)')
    .action((options: { agent?: string }, command: Command) =>
      runCommand(runtime, command, async ({ openEngine, env, output }) => {
        const agentId = agentOf(options, env);
        const engine = await openEngine();
        let lines = 0;
        for await (const line of engine.export({ agentId })) {
          lines++;
          if (!runtime.stdout.write(line)) await once(runtime.stdout, 'drain');
        }
        output.note(`exported ${lines} records of agent ${agentId}`);
        return undefined;
      }),
    );
}
