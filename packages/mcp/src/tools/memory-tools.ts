import type { Memory, MemoryEngine, MemoryType } from '@memory/engine';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { iso, runTool, toolResult } from '../tool-result.js';

/** The types a model may choose (document chunks are the engine's own). Checked against the engine's list. */
export const MODEL_TYPES = [
  'fact',
  'preference',
  'decision',
  'procedural',
  'semantic',
  'constraint',
  'agreement',
  'incident',
  'operating_rule',
  'project_context',
] as const satisfies readonly MemoryType[];

const id = z.string().min(1).describe('The memory id, as returned by remember or recall.');
const reason = z.string().min(1).describe('Why, in a short sentence; it is kept in the audit trail.');
const tags = z.array(z.string().min(1)).describe('Short labels to filter by later, e.g. ["work", "travel"].');
const importance = z.number().min(0).max(1).describe('0..1: how much this matters later (0.5 is ordinary).');

/** The memory fields a model needs to talk about one memory. */
export function memoryView(m: Memory): Record<string, unknown> {
  return {
    id: m.id,
    content: m.content,
    type: m.type,
    importance: m.importance,
    tags: [...m.tags],
    pinned: m.pinned,
    deleted: m.deleted,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
  };
}

/** remember, forget, modify: each a call of the engine in the server's agent scope. */
export function registerMemoryWriteTools(server: McpServer, engine: MemoryEngine, agentId: string): void {
  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description:
        'Store one durable memory: a single self-contained statement worth knowing in a later conversation ' +
        '(a fact about the user, a preference, a decision and its reason). Write it so it makes sense without ' +
        'this conversation ("Alice prefers green tea, no sugar"), one idea per call. Storing the same content ' +
        'again returns the existing id (deduped: true).',
      inputSchema: {
        content: z.string().min(1).describe('The memory itself, one self-contained statement.'),
        type: z.enum(MODEL_TYPES).optional().describe('What kind of memory this is. Default: fact.'),
        importance: importance.optional(),
        tags: tags.optional(),
        pinned: z
          .boolean()
          .optional()
          .describe('Pinned memories stay searchable whatever their age and need force to forget.'),
        project: z.string().min(1).optional().describe('The project this belongs to, if any.'),
        who: z.string().min(1).optional().describe('The person this is about, if any.'),
        why: z.string().min(1).optional().describe('Why this is worth remembering or how it was learned.'),
      },
      outputSchema: { id: z.string(), deduped: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const result = await engine.remember({ ...args, agentId });
        const text = result.deduped ? `Already remembered as ${result.id}.` : `Remembered as ${result.id}.`;
        return toolResult(text, { id: result.id, deduped: result.deduped });
      }),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description:
        'Forget a memory that is wrong, outdated or that the user asked you to drop. It stops being recalled; ' +
        'an operator can recover it for a while. Pinned memories need force: true.',
      inputSchema: { id, reason, force: z.boolean().optional().describe('Needed to forget a pinned memory.') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const result = await engine.forget({ ...args, agentId });
        const text = result.forgotten ? `Forgot ${result.id}.` : `${result.id} was already forgotten.`;
        return toolResult(text, { ...result });
      }),
  );

  server.registerTool(
    'modify',
    {
      title: 'Modify',
      description:
        'Correct or update a memory in place (content, importance, tags or pinned), keeping its history. ' +
        'Prefer this over forget + remember when a memory changed rather than was wrong to begin with.',
      inputSchema: {
        id,
        reason,
        content: z.string().min(1).optional().describe('The new content, replacing the old.'),
        importance: importance.optional(),
        tags: tags.optional(),
        pinned: z.boolean().optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const memory = await engine.modify({ ...args, agentId });
        return toolResult(`Updated ${memory.id}: ${memory.content}`, { memory: memoryView(memory) });
      }),
  );
}

/** history: a memory's audit trail, read in the server's agent scope. */
export function registerHistoryTool(server: McpServer, engine: MemoryEngine, agentId: string): void {
  server.registerTool(
    'history',
    {
      title: 'Memory history',
      description:
        "A memory's audit trail, oldest first: when it was created, changed, forgotten or recovered, by whom and why.",
      inputSchema: { id },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const entries = await engine.history({ id: args.id, agentId });
        const lines = entries.map((e) => {
          const change = e.newContent === null ? '' : `: ${e.newContent}`;
          const why = e.reason === null ? '' : ` (reason: ${e.reason})`;
          return `- ${iso(e.at)} ${e.event} by ${e.changedBy}${why}${change}`;
        });
        const structured = entries.map((e) => ({
          event: e.event,
          at: iso(e.at),
          changedBy: e.changedBy,
          actorType: e.actorType,
          reason: e.reason,
          oldContent: e.oldContent,
          newContent: e.newContent,
        }));
        return toolResult(lines.join('\n'), { memoryId: args.id, entries: structured });
      }),
  );
}
