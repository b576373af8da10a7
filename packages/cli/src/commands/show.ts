import { MemoryError } from '@memory/engine';
import type { Command } from 'commander';
import { when } from '../output.js';
import { agentOf, type CliRuntime, runCommand } from '../runtime.js';

/** `memory show <id> --agent a`: one memory (forgotten ones too) with its audit trail. */
export function registerShowCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('show')
    .description('show one memory, forgotten or not, with its history')
    .argument('<id>', 'the memory id')
    .option('--agent <id>', 'the agent scope (or MEMORY_AGENT)')
    .action((id: string, options: { agent?: string }, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine, env }) => {
        const agentId = agentOf(options, env);
        const engine = await openEngine();
        const memory = await engine.getMemory({ agentId, id, includeDeleted: true });
        if (!memory) throw new MemoryError('NOT_FOUND', `no memory ${id} in agent ${agentId}`);
        const history = await engine.history({ agentId, id });
        if (output.json) {
          output.data({ memory, history });
          return undefined;
        }
        output.line(memory.deleted ? output.style('yellow', memory.content) : output.style('bold', memory.content));
        output.line();
        output.pairs([
          ['id', memory.id],
          ['type', memory.type],
          ['state', memory.deleted ? `forgotten ${when(memory.deletedAt)}` : memory.pinned ? 'pinned' : 'live'],
          ['importance', memory.importance.toFixed(2)],
          ['tags', memory.tags.join(', ') || '-'],
          ['project', memory.project ?? '-'],
          ['who', memory.who ?? '-'],
          ['source', memory.source ? `${memory.source.type} ${memory.source.id}` : '-'],
          ['created', when(memory.createdAt)],
          ['updated', when(memory.updatedAt)],
          ['recalled', `${memory.accessCount}× (last ${when(memory.lastAccessed)})`],
        ]);
        output.line();
        output.line(output.style('bold', 'HISTORY'));
        output.table(
          ['when', 'event', 'by', 'reason'],
          history.map((h) => [when(h.at), h.event, `${h.changedBy} (${h.actorType})`, h.reason ?? '-']),
        );
        return undefined;
      }),
    );
}
