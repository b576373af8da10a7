import type { Command } from 'commander';
import { when } from '../output.js';
import { agentOf, type CliRuntime, runCommand } from '../runtime.js';
import { positiveInt } from './parse.js';

interface ListOptions {
  agent?: string;
  limit?: number;
  sessions?: boolean;
  documents?: boolean;
}

/**
 * `memory list --agent a`: what the engine can list for a scope today, sessions and documents.
 * The engine has no memory listing yet; when it gets one, memories join here.
 */
export function registerListCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('list')
    .description("list an agent scope's sessions and documents, newest first (memories: use recall or show)")
    .option('--agent <id>', 'the agent scope (or MEMORY_AGENT)')
    .option('--sessions', 'only sessions')
    .option('--documents', 'only documents')
    .option('--limit <n>', 'at most this many of each (default 50, at most 500)', positiveInt)
    .action((options: ListOptions, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine, env }) => {
        const agentId = agentOf(options, env);
        const limit = Math.min(options.limit ?? 50, 500);
        const both = !options.sessions && !options.documents;
        const engine = await openEngine();
        const sessions = both || options.sessions ? await engine.transcripts.list({ agentId, limit }) : undefined;
        const documents = both || options.documents ? await engine.documents.list({ agentId, limit }) : undefined;
        if (output.json) {
          output.data({ agentId, ...(sessions ? { sessions } : {}), ...(documents ? { documents } : {}) });
          return undefined;
        }
        if (sessions) {
          output.line(output.style('bold', `SESSIONS (${sessions.length})`));
          output.table(
            ['session', 'turns', 'state', 'updated', 'project'],
            sessions.map((s) => [
              s.sessionKey,
              String(s.turnCount),
              s.completedAt === null ? 'open' : 'completed',
              when(s.updatedAt),
              s.project ?? '-',
            ]),
          );
        }
        if (documents) {
          if (sessions) output.line();
          output.line(output.style('bold', `DOCUMENTS (${documents.length})`));
          output.table(
            ['id', 'status', 'chunks', 'updated', 'title'],
            documents.map((d) => [
              d.id,
              d.status,
              String(d.chunkCount),
              when(d.updatedAt),
              d.title ?? d.sourceUrl ?? '-',
            ]),
          );
        }
        return undefined;
      }),
    );
}
