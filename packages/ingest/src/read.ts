import { MemoryError, type MemoryId, parseInput } from '@memory/core';
import { findMemoryProgram, listHistoryProgram, type PortableStore } from '@memory/store';
import { type HistoryEntry, type Memory, toHistoryEntry, toMemory } from './memory-view.js';
import type { MemoryWriter } from './writer.js';

/** A memory in the caller's scope, or undefined (also for other agents' memories). */
export async function getMemory(
  writer: MemoryWriter<PortableStore>,
  id: unknown,
  options: unknown,
): Promise<Memory | undefined> {
  const memoryId = parseInput(writer.schemas.id, id, 'getMemory') as MemoryId;
  const { agentId, includeDeleted } = parseInput(writer.schemas.get, options, 'getMemory');
  const row = await writer.store.db.read(() =>
    findMemoryProgram(agentId, memoryId, { includeDeleted: includeDeleted === true }),
  );
  return row ? toMemory(row) : undefined;
}

/** The audit trail of a memory (forgotten ones too), oldest first. `NOT_FOUND` outside the scope. */
export async function memoryHistory(
  writer: MemoryWriter<PortableStore>,
  id: unknown,
  options: unknown,
): Promise<HistoryEntry[]> {
  const memoryId = parseInput(writer.schemas.id, id, 'history') as MemoryId;
  const { agentId } = parseInput(writer.schemas.scoped, options, 'history');
  const rows = await writer.store.db.read(function* () {
    if (!(yield* findMemoryProgram(agentId, memoryId, { includeDeleted: true }))) {
      throw new MemoryError('NOT_FOUND', `no memory ${memoryId} in this scope`, { details: { id: memoryId } });
    }
    return yield* listHistoryProgram(agentId, memoryId);
  });
  return rows.map(toHistoryEntry);
}
