import { agentIdSchema, invalidInput, labelSchema, parseInput, timeSchema } from '@memory/core';
import { type Memory, toMemory } from '@memory/ingest';
import { listMemoryPageProgram, MEMORY_TYPES } from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';

const listSchema = z.strictObject({
  agentId: agentIdSchema,
  /** One type or several. */
  type: z.union([z.enum(MEMORY_TYPES), z.array(z.enum(MEMORY_TYPES)).min(1).max(MEMORY_TYPES.length)]).optional(),
  /** Every listed tag must be on the memory. */
  tags: z.array(labelSchema(256, 'tag')).max(32).optional(),
  /** created_at ≥ since. */
  since: timeSchema.optional(),
  /** created_at < until. */
  until: timeSchema.optional(),
  /** Forgotten and expired memories too (they come back with `deleted` / `expiresAt`). @default false */
  includeForgotten: z.boolean().optional(),
  /** `nextCursor` of the previous page. */
  cursor: z.string().max(200).optional(),
  /** @default 50, at most 500 */
  limit: z.number().int().min(1).max(500).optional(),
});

/** `engine.list`: a page of one scope's memories, newest first. */
export type ListMemoriesInput = z.input<typeof listSchema>;

/** A page of memories and the cursor of the next one (null on the last page). */
export interface MemoryPage {
  readonly memories: Memory[];
  readonly nextCursor: string | null;
}

// A cursor is the (created_at, seq) of the page's last row, base64url-encoded: opaque to hosts,
// and only a position (a cursor taken from another scope lists this scope from that point).
function encodeCursor(createdAt: number, seq: number): string {
  return Buffer.from(`${createdAt}.${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: number; seq: number } {
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidInput('list', [{ path: ['cursor'], message: 'cursor is not one list returned' }]);
  return { createdAt: Number(match[1]), seq: Number(match[2]) };
}

/**
 * Keyset-paged listing of a scope, newest first (created_at, then insertion order). Each page is
 * one index range, however deep; memories written while paging appear on later pages only when
 * they sort after the cursor.
 */
export async function listMemories(ctx: EngineContext, input: unknown): Promise<MemoryPage> {
  const q = parseInput(listSchema, input, 'list');
  const limit = q.limit ?? 50;
  const now = ctx.portable.clock.now();
  const rows = await ctx.portable.db.read(() =>
    listMemoryPageProgram({
      agentId: q.agentId,
      types: q.type === undefined ? undefined : Array.isArray(q.type) ? q.type : [q.type],
      tags: q.tags,
      since: q.since,
      until: q.until,
      includeForgotten: q.includeForgotten,
      after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
      limit: limit + 1,
      now,
    }),
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    memories: page.map(toMemory),
    nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.seq) : null,
  };
}
