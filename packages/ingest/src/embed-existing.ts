import {
  attachMemoryVectorProgram,
  findMemoryProgram,
  type MemoryRow,
  type PortableStore,
  runWriterProgram,
} from '@memory/store';
import { embedTexts, type MemoryWriter, writeDeps } from './writer.js';

/**
 * Gives vectors to memories written without one (by the Dreaming seam, which never calls
 * providers): embed outside any transaction, then store each vector in one short transaction,
 * skipping memories whose content changed or that were forgotten meanwhile. Returns how many got one.
 */
export async function embedStoredMemories(
  writer: MemoryWriter<PortableStore>,
  agentId: string,
  memoryIds: readonly string[],
): Promise<number> {
  const { store, embedder } = writer;
  if (!embedder || memoryIds.length === 0) return 0;
  const rows = await store.db.read(function* () {
    const found: MemoryRow[] = [];
    for (const id of memoryIds) {
      const row = yield* findMemoryProgram(agentId, id);
      if (row) found.push(row);
    }
    return found;
  });
  const vectors = await embedTexts(
    writer,
    rows.map((r) => r.content),
  );
  if (!vectors) return 0;
  const deps = writeDeps(writer);
  return runWriterProgram(store, { agentIds: [agentId] }, function* (target) {
    const now = store.clock.now();
    let stored = 0;
    for (const [i, row] of rows.entries()) {
      const vector = vectors[i];
      if (!vector) continue;
      const memory = { agentId, id: row.id, contentHash: row.content_hash };
      if (yield* attachMemoryVectorProgram(target, deps, memory, { model: embedder.model, vector }, now)) stored++;
    }
    return stored;
  });
}
