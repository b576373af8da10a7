import { createManualClock } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// Dedup by content hash is per agent scope: the same text in another scope is neither a duplicate
// of this agent's memory nor a conflict for this agent's modify and recover. Each memory of each
// scope gets its own vector, so semantic recall finds it.

const TEXT = 'The backup drive is in the second drawer of the office desk.';

async function engineWithVectors(vectorExtension: 'auto' | 'off') {
  const { engine } = await createTestEngine({
    database: { database: new Database(':memory:') },
    clock: createManualClock(T0),
    embedder: createBagOfWordsEmbedder(32),
    // Semantic channel only: a memory without a vector cannot be found.
    config: {
      store: { vectorExtension },
      recall: { channels: { lexical: false, hints: false, semantic: true }, searchWindowDays: null },
    },
  });
  return engine;
}

/** Ids semantic recall returns for the agent. */
const semanticIds = async (engine: MemoryEngine, agentId: string, query: string) =>
  (await engine.recall({ agentId, query, limit: 10 })).results.map((r) => r.id);

describe('content dedup is scoped to the agent', () => {
  it.each(['auto', 'off'] as const)(
    'the same text in two scopes: two memories, each with its own vector (sqlite-vec %s)',
    async (vectorExtension) => {
      const engine = await engineWithVectors(vectorExtension);
      const a = await engine.remember({ agentId: 'a', content: TEXT });
      const b = await engine.remember({ agentId: 'b', content: TEXT });
      expect(b.id).not.toBe(a.id);
      expect(b.deduped).toBe(false);
      // What dedup-by-hash decides shows in what each agent can find, not just in the flag.
      expect(await semanticIds(engine, 'a', TEXT)).toEqual([a.id]);
      expect(await semanticIds(engine, 'b', TEXT)).toEqual([b.id]);
      // Remembering it again in either scope returns that scope's own memory.
      expect(await engine.remember({ agentId: 'b', content: TEXT })).toEqual({ id: b.id, deduped: true });
      expect(await engine.remember({ agentId: 'a', content: TEXT })).toEqual({ id: a.id, deduped: true });
      await engine.close();
    },
  );

  it('rememberMany in a second scope is not deduplicated against the first, and embeds what it writes', async () => {
    const engine = await engineWithVectors('off');
    const [a] = await engine.rememberMany({ agentId: 'a', memories: [{ content: TEXT }] });
    const [b, again] = await engine.rememberMany({ agentId: 'b', memories: [{ content: TEXT }, { content: TEXT }] });
    expect(b).toEqual({ id: expect.any(String), deduped: false });
    expect(b?.id).not.toBe(a?.id);
    expect(again).toEqual({ id: b?.id, deduped: true });
    expect(await semanticIds(engine, 'b', TEXT)).toEqual([b?.id]);
    await engine.close();
  });

  it('modify to content another scope holds is no conflict; to content this scope holds is', async () => {
    const engine = await engineWithVectors('off');
    await engine.remember({ agentId: 'a', content: TEXT });
    const draft = await engine.remember({ agentId: 'b', content: 'A draft note about where things are kept.' });
    const changed = await engine.modify({ agentId: 'b', id: draft.id, content: TEXT, reason: 'clarified' });
    expect(changed.content).toBe(TEXT);
    expect(await semanticIds(engine, 'b', TEXT)).toEqual([draft.id]);
    const second = await engine.remember({ agentId: 'b', content: 'Another note.' });
    await expect(engine.modify({ agentId: 'b', id: second.id, content: TEXT, reason: 'dup' })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { existingId: draft.id },
    });
    await engine.close();
  });

  it('recover while another scope holds the same content succeeds; while this scope does, it is a conflict', async () => {
    const engine = await engineWithVectors('off');
    await engine.remember({ agentId: 'a', content: TEXT });
    const b = await engine.remember({ agentId: 'b', content: TEXT });
    await engine.forget({ agentId: 'b', id: b.id, reason: 'tidy' });
    expect(await semanticIds(engine, 'b', TEXT)).toEqual([]);
    const recovered = await engine.recover({ agentId: 'b', id: b.id });
    expect(recovered.deleted).toBe(false);
    expect(await semanticIds(engine, 'b', TEXT)).toEqual([b.id]);

    await engine.forget({ agentId: 'b', id: b.id, reason: 'tidy' });
    const replacement = await engine.remember({ agentId: 'b', content: TEXT });
    expect(replacement.deduped).toBe(false);
    await expect(engine.recover({ agentId: 'b', id: b.id })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { existingId: replacement.id },
    });
    await engine.close();
  });
});
