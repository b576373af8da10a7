import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { chunkText, chunkTextSliced } from '../../ingest/src/documents/chunk-text.js';
import { DOCUMENT_PART_CHARS, DOCUMENT_ROW_MAX_CHARS } from '../../ingest/src/documents/document-text.js';
import { hashText } from '../../ingest/src/documents/hash-text.js';
import { walHighWater, walRestarts } from '../../store/test/support/wal-files.js';
import type { EmbeddingProvider } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

// Issue 11, item 13: big inputs never hold the event loop in one piece.

const prose = (chars: number, seed = 1) => {
  const words = ['kettle', 'cupboard', 'Kestrel', 'budget', 'tea', 'migration', 'Dana', 'review', 'the', 'of'];
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const word = `${words[(i * 7 + seed) % words.length]}${i % 13 === 12 ? '.' : ''} `;
    out.push(word);
    size += word.length;
  }
  return out.join('').slice(0, chars);
};

/** An embedder that notes, at its first call, whether a callback queued on the event loop had run. */
function watchingEmbedder(): EmbeddingProvider & { loopRanBeforeFirstEmbed: boolean | undefined; arm(): void } {
  const inner = createBagOfWordsEmbedder();
  let ran = false;
  const embedder = {
    model: inner.model,
    dimensions: inner.dimensions,
    loopRanBeforeFirstEmbed: undefined as boolean | undefined,
    arm() {
      ran = false;
      setImmediate(() => {
        ran = true;
      });
    },
    embed(texts: readonly string[]) {
      embedder.loopRanBeforeFirstEmbed ??= ran;
      return inner.embed(texts);
    },
  };
  return embedder;
}

describe('rememberMany', () => {
  it('lets the event loop run while validating large items, before the first embedding call', async () => {
    const embedder = watchingEmbedder();
    const { engine } = await createTestEngine({ embedder, config: { hints: { enabled: false } } });
    // 24 × 60 KiB: under the old 100-item validation chunk this was validated in one go.
    const memories = Array.from({ length: 24 }, (_, i) => ({ content: prose(60 * 1024, i) }));
    embedder.arm();
    const stored = await engine.rememberMany({ agentId: 'a', memories });
    expect(stored).toHaveLength(24);
    expect(embedder.loopRanBeforeFirstEmbed).toBe(true);
  });

  it('gives the host a turn of the event loop in every call, even a small one with an embedder that answers at once', async () => {
    const { engine } = await createTestEngine({ config: { hints: { enabled: false } } });
    // A host loading in many small calls in a row: without a turn per call, each call resolves
    // through microtasks alone and the host's own timers and I/O wait for the whole load.
    let turns = 0;
    for (let call = 0; call < 5; call++) {
      setImmediate(() => {
        turns++;
      });
      await engine.rememberMany({ agentId: 'a', memories: [{ content: `small item ${call}` }] });
      expect(turns).toBe(call + 1);
    }
  });
});

describe('remember, awaited back to back', () => {
  it("lets the host's timers run all along, and the background checkpoint keeps the WAL restarting", async () => {
    // An embedder that answers at once: each call resolves through microtasks alone. Without a
    // turn of the event loop now and then, the host's interval never fired during the loop, the
    // checkpoint worker's replies were never read, and the WAL grew to the writer's own checkpoint
    // (64,000 frames, copied inside a COMMIT on the event loop).
    const dir = mkdtempSync(join(tmpdir(), 'memory-turns-'));
    const path = join(dir, 'engine.db');
    try {
      const { engine } = await createTestEngine({
        database: { path },
        embedder: createBagOfWordsEmbedder(),
        config: { hints: { enabled: false } },
      });
      await engine.remember({ agentId: 'a', content: 'the first note opens the WAL' });
      const restartsBefore = walRestarts(path);
      let ticks = 0;
      const timer = setInterval(() => {
        ticks++;
      }, 1);
      const started = performance.now();
      for (let i = 0; i < 1200; i++) {
        await engine.remember({ agentId: 'a', content: `note ${i}: ${prose(160, i)} ${i * 7919}` });
      }
      const elapsed = performance.now() - started;
      clearInterval(timer);
      const highWater = walHighWater(path);
      const restarts = walRestarts(path) - restartsBefore;
      await engine.close();
      // A turn at least every 50 ms of the loop (the budget is 10 ms of calls).
      expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 50));
      // The calls wrote well past the restart point (16,000 frames): the WAL started over behind them.
      expect(restarts).toBeGreaterThanOrEqual(1);
      expect(highWater).toBeLessThan(25_000);
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 60_000);
});

describe('a call accepted just before close()', () => {
  it('still runs when it first waits for a turn of the event loop', async () => {
    const { engine } = await createTestEngine({ config: { hints: { enabled: false } } });
    const turn = (content: string) => ({ agentId: 'a', sessionKey: 's', turns: [{ role: 'user' as const, content }] });
    // This call queues the marker; it resolves through microtasks alone, so the loop has not turned.
    await engine.transcripts.append(turn('the first turn'));
    // The thread held past the turn budget: the next call waits for a turn before its work.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    const appended = engine.transcripts.append(turn('the second turn'));
    await engine.close();
    await expect(appended).resolves.toMatchObject({ appended: 1 });
  });
});

describe('rememberMany, its last transaction', () => {
  it('resolves after the timers that fell due during its last batch, not on that batch turn', async () => {
    // The embedding call and the transaction run on one turn; a timer that falls due meanwhile
    // must run before the caller continues (its next work would otherwise extend that turn).
    let fired = false;
    const inner = createBagOfWordsEmbedder();
    const embedder: EmbeddingProvider = {
      model: inner.model,
      dimensions: inner.dimensions,
      embed(texts) {
        setTimeout(() => {
          fired = true;
        }, 0);
        const until = performance.now() + 3;
        while (performance.now() < until);
        return inner.embed(texts);
      },
    };
    const { engine } = await createTestEngine({ embedder, config: { hints: { enabled: false } } });
    const stored = await engine.rememberMany({
      agentId: 'a',
      memories: [{ content: 'the kettle is in the cupboard' }],
    });
    expect(stored).toHaveLength(1);
    expect(fired).toBe(true);
  });
});

describe('document embedding', () => {
  it('lets the event loop run between embedding batches, even with an embedder that answers at once', async () => {
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    const seen: number[] = [];
    const inner = createBagOfWordsEmbedder();
    const embedder: EmbeddingProvider = {
      model: inner.model,
      dimensions: inner.dimensions,
      embed(texts) {
        seen.push(turns);
        // ~6 ms of CPU per batch, answered without waiting on anything (like an in-process model).
        const until = performance.now() + 6;
        while (performance.now() < until);
        return inner.embed(texts);
      },
    };
    const { engine } = await createTestEngine({
      embedder,
      config: { documents: { chunkSize: 100, chunkOverlap: 0, embedBatchSize: 2 }, hints: { enabled: false } },
    });
    await engine.documents.add({ agentId: 'a', content: prose(6000) });
    setImmediate(tick);
    await engine.runDue();
    ticking = false;
    expect(seen.length).toBeGreaterThan(10);
    // Before: every batch chained on microtasks, so the loop never turned between them.
    expect(seen.at(-1)).toBeGreaterThan(seen[0] ?? 0);
  });
});

describe('large documents', () => {
  it('stores a large text in parts, so no statement writes or rewrites it whole, and still ingests and cites it', async () => {
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      config: { documents: { maxBytes: 8 * 1024 * 1024 }, hints: { enabled: false } },
    });
    const content = `${prose(2.5 * DOCUMENT_PART_CHARS)} The closing line names the Zanzibar archive.`;
    const { id } = await engine.documents.add({ agentId: 'a', content });
    const row = () =>
      db.prepare('SELECT raw_content, content_hash, status FROM documents WHERE id = ?').get(id) as {
        raw_content: string | null;
        content_hash: string;
        status: string;
      };
    expect(row().raw_content).toBeNull();
    expect(row().content_hash).toBe(createHash('sha256').update(content).digest('hex'));
    const parts = db
      .prepare('SELECT part, length(text) AS n FROM document_content_parts WHERE document_id = ? ORDER BY part')
      .all(id) as Array<{ part: number; n: number }>;
    expect(parts.map((p) => p.part)).toEqual([0, 1, 2]);
    expect(parts.every((p) => p.n <= DOCUMENT_PART_CHARS + 1)).toBe(true);

    await engine.runDue();
    expect(row().status).toBe('done');
    const { results } = await engine.recall({ agentId: 'a', query: 'Zanzibar archive' });
    expect(results[0]?.content).toContain('Zanzibar archive');
    // Dreaming reads the whole text from its parts.
    const applied = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Zanzibar archive' },
          evidence: [{ sourceRef: `document:${id}`, quote: 'The closing line names the Zanzibar archive.' }],
        },
      ],
    });
    expect(applied.rejected).toEqual([]);
  });

  it('keeps a text over DOCUMENT_ROW_MAX_CHARS out of the document row, which every status change rewrites', async () => {
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({ database: { database: db }, config: { hints: { enabled: false } } });
    const stored = (id: string) =>
      db
        .prepare(
          `SELECT length(raw_content) AS inRow, (SELECT count(*) FROM document_content_parts p WHERE p.document_id = d.id) AS parts
           FROM documents d WHERE id = ?`,
        )
        .get(id) as { inRow: number | null; parts: number };
    // A 1 MB text used to stay in the row: each of the ingest's status changes rewrote and committed it.
    const large = await engine.documents.add({ agentId: 'a', content: prose(DOCUMENT_ROW_MAX_CHARS + 1, 3) });
    const small = await engine.documents.add({ agentId: 'a', content: prose(DOCUMENT_ROW_MAX_CHARS, 4) });
    expect(stored(large.id)).toEqual({ inRow: null, parts: 1 });
    expect(stored(small.id)).toEqual({ inRow: DOCUMENT_ROW_MAX_CHARS, parts: 0 });
    await engine.runDue();
    for (const { id } of [large, small])
      expect((await engine.documents.get({ agentId: 'a', id }))?.status).toBe('done');
    expect(stored(large.id)).toEqual({ inRow: null, parts: 1 });
  });

  it('chunks and hashes in slices with the same results as in one piece', async () => {
    const text = `${prose(300_000)}\n\n${'🙂'.repeat(DOCUMENT_PART_CHARS)}`;
    expect(await chunkTextSliced(text, 2000, 200)).toEqual(chunkText(text, 2000, 200));
    expect(await hashText(text)).toBe(createHash('sha256').update(text).digest('hex'));
  });
});
