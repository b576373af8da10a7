import { attachMemoryVector, findMemory } from '@memory/store';
import { embedTexts, type MemoryWriter, writeDeps } from './writer.js';

/**
 * Gives vectors to memories written without one (by the Dreaming seam, which never calls
 * providers): embed outside any transaction, then store each vector in one short transaction,
 * skipping memories whose content changed or that were forgotten meanwhile. Returns how many got one.
 */
export async function embedStoredMemories(
  writer: MemoryWriter,
  agentId: string,
  memoryIds: readonly string[],
): Promise<number> {
  const { store, embedder } = writer;
  if (!embedder || memoryIds.length === 0) return 0;
  const rows = store.read((sql) => memoryIds.flatMap((id) => findMemory(sql, agentId, id) ?? []));
  const vectors = await embedTexts(
    writer,
    rows.map((r) => r.content),
  );
  if (!vectors) return 0;
  return store.write((sql) => {
    const now = store.clock.now();
    let stored = 0;
    for (const [i, row] of rows.entries()) {
      const vector = vectors[i];
      if (!vector) continue;
      const memory = { agentId, id: row.id, contentHash: row.content_hash };
      if (attachMemoryVector(sql, writeDeps(writer), memory, { model: embedder.model, vector }, now)) stored++;
    }
    return stored;
  });
}
