import { MemoryError, type MemoryId, parseInput } from '@memory/core';
import { findMemory, listHistory } from '@memory/store';
import { type HistoryEntry, type Memory, toHistoryEntry, toMemory } from './memory-view.js';
import type { MemoryWriter } from './writer.js';

/** A memory in the caller's scope, or undefined (also for other agents' memories). */
export function getMemory(writer: MemoryWriter, id: unknown, options: unknown): Memory | undefined {
  const memoryId = parseInput(writer.schemas.id, id, 'getMemory') as MemoryId;
  const { agentId, includeDeleted } = parseInput(writer.schemas.get, options, 'getMemory');
  const row = writer.store.read((sql) =>
    findMemory(sql, agentId, memoryId, { includeDeleted: includeDeleted === true }),
  );
  return row ? toMemory(row) : undefined;
}

/** The audit trail of a memory (forgotten ones too), oldest first. `NOT_FOUND` outside the scope. */
export function memoryHistory(writer: MemoryWriter, id: unknown, options: unknown): HistoryEntry[] {
  const memoryId = parseInput(writer.schemas.id, id, 'history') as MemoryId;
  const { agentId } = parseInput(writer.schemas.scoped, options, 'history');
  return writer.store.read((sql) => {
    if (!findMemory(sql, agentId, memoryId, { includeDeleted: true })) {
      throw new MemoryError('NOT_FOUND', `no memory ${memoryId} in this scope`, { details: { id: memoryId } });
    }
    return listHistory(sql, agentId, memoryId).map(toHistoryEntry);
  });
}
