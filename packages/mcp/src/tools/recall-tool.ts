import { formatRecall, type MemoryEngine, type RecallResponse } from '@memory/engine';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { iso, runTool, toolResult } from '../tool-result.js';
import { MODEL_TYPES } from './memory-tools.js';

const resultSchema = z.object({
  id: z.string(),
  content: z.string(),
  type: z.string(),
  tier: z.enum(['linked', 'related']),
  score: z.number(),
  createdAt: z.string(),
  tags: z.array(z.string()),
  project: z.string().nullable(),
  who: z.string().nullable(),
  pinned: z.boolean(),
  entities: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
});

const outputSchema = {
  results: z.array(resultSchema),
  drillDown: z.array(z.record(z.string(), z.string())),
  vectorCompleteness: z.string(),
  warnings: z.array(z.string()),
  expansions: z.array(z.object({ sessionKey: z.string(), excerpt: z.string(), truncated: z.boolean() })).optional(),
};

/** The structured half of a recall: what a program reading the result needs, times as ISO strings. */
function structured(response: RecallResponse): Record<string, unknown> {
  return {
    results: response.results.map((r) => ({
      id: r.id,
      content: r.content,
      type: r.type,
      tier: r.tier,
      score: r.score,
      createdAt: iso(r.createdAt),
      tags: [...r.tags],
      project: r.project,
      who: r.who,
      pinned: r.pinned,
      ...(r.entities ? { entities: r.entities.map((e) => ({ id: e.id, name: e.name })) } : {}),
    })),
    drillDown: response.drillDown.map((d) => ({ ...d })),
    vectorCompleteness: response.vectorCompleteness,
    warnings: [...response.warnings],
    ...(response.expansions
      ? {
          expansions: response.expansions.map((e) => ({
            sessionKey: e.sessionKey,
            excerpt: e.excerpt,
            truncated: e.truncated,
          })),
        }
      : {}),
  };
}

/** recall: the engine's hybrid recall in the server's scope, rendered by `formatRecall` within a budget. */
export function registerRecallTool(server: McpServer, engine: MemoryEngine, agentId: string): void {
  server.registerTool(
    'recall',
    {
      title: 'Recall',
      description:
        'Search long-term memory before answering anything that may depend on what you were told before ' +
        '(preferences, facts about people and projects, earlier decisions). Ask in natural words, e.g. ' +
        '"what does Alice drink" or "decisions about the deployment". LINKED CONTEXT is verified through ' +
        'links and the knowledge graph; POSSIBLY RELATED are text or meaning matches to weigh, not facts. ' +
        'Each line ends with the memory id to use with forget, modify or history.',
      inputSchema: {
        query: z.string().min(1).describe('What to look for, in natural language.'),
        limit: z.number().int().min(1).optional().describe('At most this many memories (default 10).'),
        types: z
          .array(z.enum([...MODEL_TYPES, 'document_chunk']))
          .min(1)
          .optional()
          .describe('Only memories of these types (document_chunk: passages of added documents).'),
        tags: z.array(z.string().min(1)).optional().describe('Only memories carrying every one of these tags.'),
        project: z.string().min(1).optional().describe('Only memories of this project.'),
        who: z.string().min(1).optional().describe('Only memories about this person.'),
        expand: z.boolean().optional().describe('Also return excerpts of the conversations behind the results.'),
        budgetTokens: z
          .number()
          .int()
          .min(50)
          .max(20_000)
          .optional()
          .describe(
            'Approximate size of the returned text in tokens (default 1000; excerpts from expand come on top).',
          ),
      },
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ budgetTokens, types, ...query }) =>
      runTool(async () => {
        const response = await engine.recall({ ...query, ...(types ? { type: types } : {}), agentId });
        const text = formatRecall(response, { ids: true, ...(budgetTokens === undefined ? {} : { budgetTokens }) });
        const excerpts = (response.expansions ?? []).map(
          (e) => `\n\nSESSION ${e.sessionKey}\n${e.excerpt}${e.truncated ? '\n…' : ''}`,
        );
        return toolResult(text + excerpts.join(''), structured(response));
      }),
  );
}
