// One load of bench:write-perf, in its own process: the synthetic corpus with precomputed 384-d
// vectors (as bench:write), then, between `ready` and the end, only the load itself: the floor's
// prepared INSERTs (memory row, history row, canonical vector, vec0 row, postings in term order and
// the scope counts, 100 memories or 1 per transaction) or the engine's rememberMany / remember.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSequentialIds, hashNormalized, normalizeForHash } from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { openStore } from '@memory/store';
import { textTerms } from '@memory/store/testing';
import { createDenseEmbedder } from './dense-embedder.js';
import { distinctMemories } from './synthetic.js';
import { embedFixture, replayEmbedder } from './vector-fixture.js';

export type LoadKind = 'bulk' | 'single' | 'floor' | 'floor-single';

/** Runs one load of `count` memories: `ready` once the corpus is built, then waits for `go`. */
export async function runLoad(
  kind: LoadKind,
  count: number,
  hooks: { ready: () => void; go: () => Promise<void> },
): Promise<void> {
  const inputs = distinctMemories(count);
  const fixture = await embedFixture(
    createDenseEmbedder(384),
    inputs.map((i) => i.content),
  );
  const dir = mkdtempSync(join(tmpdir(), 'memory-write-perf-load-'));
  const path = join(dir, 'load.db');
  try {
    if (kind === 'bulk' || kind === 'single') {
      const engine = await createMemoryEngine({
        database: { path },
        embedder: replayEmbedder(fixture),
        config: { limits: { maxBatchInputs: 100_000 } },
      });
      hooks.ready();
      await hooks.go();
      const agentId = 'bench';
      if (kind === 'single') for (const input of inputs) await engine.remember({ agentId, ...input } as never);
      else
        for (let done = 0; done < count; done += 10_000)
          await engine.rememberMany({ agentId, memories: inputs.slice(done, done + 10_000) as never });
      await engine.close();
      return;
    }
    const prepared = inputs.map((i) => {
      const normalized = normalizeForHash(i.content);
      return { normalized, hash: hashNormalized(normalized), terms: textTerms(i.content) };
    });
    const store = await openStore({ path });
    const db = store.database;
    db.exec('DROP TRIGGER memories_terms_ai');
    const scope = db
      .prepare("INSERT INTO text_scopes (corpus, agent_id) VALUES ('memory', 'bench') RETURNING scope")
      .get() as { scope: number };
    db.exec(
      'CREATE VIRTUAL TABLE floor_vec USING vec0(agent_id text partition key, cell integer partition key, embedding float[384] distance_metric=cosine, chunk_size=128)',
    );
    const posting = db.prepare('INSERT INTO text_postings (scope, term, row, tf, len) VALUES (?, ?, ?, ?, ?)');
    const counts = db.prepare('UPDATE text_scopes SET docs = docs + ?, tokens = tokens + ? WHERE scope = ?');
    // The live memory counts (migration 17), which the insert trigger no longer keeps for the writer's
    // rows (migration 21): one upsert per transaction and day, as the engine's writer does.
    const liveCount = db.prepare(
      `INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n) VALUES ('bench', 'live', 'dense', 0, ?, ?)
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + excluded.n`,
    );
    const memory = db.prepare(
      `INSERT INTO memories (id, agent_id, project, type, content, normalized_content, content_hash, importance,
         tags, who, linked_entities, embedding_model, created_at, updated_at)
       VALUES (?, 'bench', ?, ?, ?, ?, ?, 0.5, '[]', ?, '[]', 'dense', ?, ?) RETURNING seq`,
    );
    const history = db.prepare(
      `INSERT INTO memory_history (id, memory_id, agent_id, event, new_content, changed_by, actor_type, metadata, created_at)
       VALUES (?, ?, 'bench', 'created', ?, 'bench', 'agent', '{}', ?)`,
    );
    const vector = db.prepare(
      `INSERT INTO embeddings (agent_id, source_type, source_id, content_hash, model, dimensions, vector, created_at)
       VALUES ('bench', 'memory', ?, ?, 'dense', 384, ?, ?) RETURNING seq`,
    );
    const vec0 = db.prepare("INSERT INTO floor_vec (rowid, agent_id, cell, embedding) VALUES (?, 'bench', ?, ?)");
    const ids = createSequentialIds('f');
    const perTransaction = kind === 'floor' ? 100 : 1;
    hooks.ready();
    await hooks.go();
    for (let start = 0; start < count; start += perTransaction) {
      db.transaction(() => {
        const postings: Array<[string, number, number, number]> = [];
        const days = new Map<number, number>();
        let tokens = 0;
        const end = Math.min(count, start + perTransaction);
        for (let i = start; i < end; i++) {
          const input = inputs[i] as (typeof inputs)[number];
          const { normalized, hash, terms } = prepared[i] as (typeof prepared)[number];
          const id = ids.next();
          const now = Date.now();
          const day = Math.trunc(now / 86_400_000);
          days.set(day, (days.get(day) ?? 0) + 1);
          const row = memory.get(
            id,
            input.project,
            input.type,
            input.content,
            normalized,
            hash,
            input.who,
            now,
            now,
          ) as {
            seq: number;
          };
          history.run(ids.next(), id, input.content, now);
          const blob = Buffer.from(fixture.matrix.buffer, i * 384 * 4, 384 * 4);
          const { seq } = vector.get(id, hash, blob, now) as { seq: number };
          vec0.run((1n << 40n) | BigInt(seq), 1n << 20n, blob);
          for (const [term, tf] of terms.counts) postings.push([term, row.seq, tf, terms.length]);
          tokens += terms.length;
        }
        postings.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
        for (const [term, row, tf, len] of postings) posting.run(scope.scope, term, row, tf, len);
        counts.run(end - start, tokens, scope.scope);
        for (const [day, n] of days) liveCount.run(day, n);
      }).immediate();
    }
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
