import { formatRecall, type MemoryEngine, type RecallItem, type RecallResponse } from '@memory/engine';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { iso, runTool, toolResult } from '../tool-result.js';
import { MODEL_TYPES } from './memory-tools.js';

const memoryResult = z.object({
  kind: z.literal('memory'),
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
/** A working note, with include ["notes"]. */
const noteResult = z.object({
  kind: z.literal('note'),
  id: z.string(),
  title: z.string(),
  content: z.string(),
  status: z.enum(['active', 'resolved']),
  tier: z.enum(['linked', 'related']),
  score: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  tags: z.array(z.string()),
});

const outputSchema = {
  results: z.array(z.discriminatedUnion('kind', [memoryResult, noteResult])),
  drillDown: z.array(z.record(z.string(), z.string())),
  vectorCompleteness: z.string(),
  warnings: z.array(z.string()),
  expansions: z.array(z.object({ sessionKey: z.string(), excerpt: z.string(), truncated: z.boolean() })).optional(),
};

/** One result as the structured output shows it: what a program needs, times as ISO strings. */
function resultView(r: RecallItem): Record<string, unknown> {
  if (r.kind === 'note') {
    return {
      kind: r.kind,
      id: r.id,
      title: r.title,
      content: r.content,
      status: r.status,
      tier: r.tier,
      score: r.score,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      tags: [...r.tags],
    };
  }
  return {
    kind: r.kind,
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
  };
}

/** The structured half of a recall: what a program reading the result needs, times as ISO strings. */
function structured(response: RecallResponse<RecallItem>): Record<string, unknown> {
  return {
    results: response.results.map(resultView),
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
        'Each line ends with the memory id to use with forget, modify or history. With include ["memories", ' +
        '"notes"] working notes come back too, marked as notes with their note id.',
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
        include: z
          .array(z.enum(['memories', 'notes']))
          .min(1)
          .max(2)
          .optional()
          .describe('What to search: memories (the default), working notes, or both.'),
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
        // Typed wide: `include` is only known at run time, so results may be notes as well as memories.
        const response: RecallResponse<RecallItem> = await engine.recall({
          ...query,
          ...(types ? { type: types } : {}),
          agentId,
        });
        const text = formatRecall(response, { ids: true, ...(budgetTokens === undefined ? {} : { budgetTokens }) });
        const excerpts = (response.expansions ?? []).map(
          (e) => `\n\nSESSION ${e.sessionKey}\n${e.excerpt}${e.truncated ? '\n…' : ''}`,
        );
        return toolResult(text + excerpts.join(''), structured(response));
      }),
  );
}
