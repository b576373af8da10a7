import { ensureVectorIndex, findMemory, updateMemory, upsertEmbedding } from '@memory/store';
import { embedTexts, type MemoryWriter } from './writer.js';

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
    const mirror = ensureVectorIndex(sql, store.vector.available, embedder.model, embedder.dimensions, now);
    let stored = 0;
    rows.forEach((row, i) => {
      const vector = vectors[i];
      const current = findMemory(sql, agentId, row.id);
      if (!vector || !current || current.content_hash !== row.content_hash) return;
      upsertEmbedding(
        sql,
        {
          agentId,
          sourceType: 'memory',
          sourceId: row.id,
          contentHash: row.content_hash,
          model: embedder.model,
          vector,
          now,
        },
        mirror,
      );
      updateMemory(sql, agentId, row.id, { embedding_model: embedder.model });
      stored++;
    });
    return stored;
  });
}
