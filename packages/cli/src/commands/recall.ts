import { formatRecall, type RecallResponse } from '@memory/engine';
import type { Command } from 'commander';
import type { Output } from '../output.js';
import { agentOf, type CliRuntime, runCommand } from '../runtime.js';
import { positiveInt } from './parse.js';

/** One line per result and channel: why it scored what it did. */
function printExplanations(output: Output, response: RecallResponse): void {
  output.line();
  output.line(output.style('bold', 'EXPLAIN'));
  const rows = response.results.map((r) => {
    const channels = Object.entries(r.channels)
      .map(([name, score]) => `${name} ${score.toFixed(2)}`)
      .join(', ');
    const fused = r.explanation ? r.explanation.fused.toFixed(2) : '-';
    return [r.id, r.tier, r.score.toFixed(2), fused, channels || '-'];
  });
  output.table(['id', 'tier', 'score', 'fused', 'channels'], rows);
  output.line();
  output.pairs([
    ['query', `${response.query.mode}: ${response.query.tokens.join(' ') || '(no searchable words)'}`],
    ['vectors', response.vectorCompleteness],
    ['took', `${response.timings.totalMs.toFixed(1)} ms`],
    ...response.warnings.map((w) => ['warning', w] as const),
  ]);
}

/** `memory recall "query" --agent a [--explain]`: the engine's recall, rendered as an agent would see it. */
export function registerRecallCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('recall')
    .description("recall memories for a query in one agent's scope, as formatRecall renders them for a prompt")
    .argument('<query>', 'what to look for')
    .option('--agent <id>', 'the agent scope (or MEMORY_AGENT)')
    .option('--limit <n>', 'at most this many memories', positiveInt)
    .option('--budget <tokens>', 'approximate size of the text in tokens (default 1000)', positiveInt)
    .option('--explain', 'show channel scores, fusion and timings per result')
    .action(
      (
        query: string,
        options: { agent?: string; limit?: number; budget?: number; explain?: boolean },
        command: Command,
      ) =>
        runCommand(runtime, command, async ({ output, openEngine, env }) => {
          const agentId = agentOf(options, env);
          const engine = await openEngine();
          const response = await engine.recall({
            agentId,
            query,
            ...(options.limit === undefined ? {} : { limit: options.limit }),
            ...(options.explain ? { explain: true } : {}),
          });
          if (output.json) {
            output.data(response);
            return undefined;
          }
          const text = formatRecall(response, {
            ids: true,
            ...(options.budget === undefined ? {} : { budgetTokens: options.budget }),
          });
          for (const line of text.split('\n')) {
            const title = /^[A-Z][A-Z -]+$/.test(line);
            output.line(
              title ? output.style('bold', line) : line.replace(/\[id: ([^\]]+)\]$/, (m) => output.style('dim', m)),
            );
          }
          if (options.explain) printExplanations(output, response);
          return undefined;
        }),
    );
}
