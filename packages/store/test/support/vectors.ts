import { createSeededRandom } from '@memory/core';
import { type Store, VectorIndexWriter } from '../../src/index.js';
import { upsertEmbedding } from '../../src/repositories/embeddings.js';
import { raw } from '../../src/sql.js';

// Writing and removing memory vectors the way the memory writer does (canonical row plus the vector
// index), for the vector-index tests.

/** Clustered unit vectors: 12 random centres with noise, as real embeddings cluster by topic. */
export function clusteredVectors(count: number, seed: number, dims: number): Float32Array[] {
  const random = createSeededRandom(seed);
  const centres = Array.from({ length: 12 }, () => Float32Array.from({ length: dims }, () => random.float() - 0.5));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random.float() * centres.length)] as Float32Array;
    const v = Float32Array.from(centre, (x) => x + (random.float() - 0.5) * 0.6);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

/** Stores memory `id`'s vector for `agentId` (model `toy` unless given) and indexes it. */
export function putVector(s: Store, agentId: string, id: string, vector: Float32Array, model = 'toy'): void {
  s.write((sql) =>
    upsertEmbedding(
      sql,
      { agentId, sourceType: 'memory', sourceId: id, contentHash: `h-${id}`, model, vector, now: 0 },
      new VectorIndexWriter(sql, true, 0),
    ),
  );
}

/** Removes every vector of memory `id`, from the canonical rows and the index. */
export function forgetVectors(s: Store, id: string): void {
  s.write((sql) => {
    const rows = sql.all<{ seq: number; agentId: string; model: string; dimensions: number }>(
      raw(
        "SELECT seq, agent_id AS agentId, model, dimensions FROM embeddings WHERE source_type = 'memory' AND source_id = ?",
        id,
      ),
    );
    const index = new VectorIndexWriter(sql, true, 0);
    for (const row of rows) {
      sql.run(raw('DELETE FROM embeddings WHERE seq = ?', row.seq));
      index.remove(row);
    }
  });
}
