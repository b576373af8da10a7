import { agentIdSchema, MemoryError, parseInput } from '@memory/core';
import { toMemory } from '@memory/ingest';
import { listMemoryPageNewestFirst, type MemoryPagePosition } from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import type { MemoryPage } from './listing.js';

const MAX_PAGE = 500;

const pageSchema = z.strictObject({
  agentId: agentIdSchema,
  /** The `nextCursor` of the previous page; leave it out for the first (newest) page. */
  cursor: z.string().max(128).optional(),
  /** 1..500. @default 50 */
  limit: z.number().int().min(1).max(MAX_PAGE).optional(),
  /** Include forgotten memories. @default false */
  includeDeleted: z.boolean().optional(),
});

export type MemoryPageInput = z.input<typeof pageSchema>;

const CURSOR = /^(-?\d{1,16}):(\d{1,19})$/;

function encodeCursor(position: MemoryPagePosition): string {
  return Buffer.from(`${position.createdAt}:${position.seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): MemoryPagePosition {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) {
    throw new MemoryError('INVALID_INPUT', 'invalid input to listMemoryPage: cursor: not a cursor this engine issued', {
      details: { operation: 'listMemoryPage', issues: ['cursor: not a cursor this engine issued'] },
    });
  }
  return { createdAt: Number(match[1]), seq: Number(match[2]) };
}

/**
 * Keyset-paged listing of one scope, newest first. A cursor carries only a position, so a cursor
 * from another scope pages this scope from that position and reveals nothing of the other.
 */
export function memoryPage(ctx: EngineContext, input: unknown): MemoryPage {
  const { agentId, cursor, limit = 50, includeDeleted } = parseInput(pageSchema, input, 'listMemoryPage');
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  // One row more than asked tells whether a next page exists without a count query.
  const rows = ctx.store.read((sql) =>
    listMemoryPageNewestFirst(sql, agentId, { after, limit: limit + 1, includeDeleted }),
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, seq: last.seq }) : null;
  return { memories: page.map(toMemory), nextCursor };
}
