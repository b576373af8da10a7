import { resolveConfig } from '@memory/core';
import { memoryVectors, type Store } from '@memory/store';
import { createTestStore } from '@memory/store/testing';
import { describe, expect, it } from 'vitest';
import { createInputSchemas } from '../src/inputs.js';
import { rememberMany } from '../src/remember.js';
import type { MemoryWriter } from '../src/writer.js';

// The ingest writer's rememberMany takes inputs that each carry their agent (the engine's
// rememberMany is one scope per call, but this function is the writer every path shares). Two
// agents saving the same text in one batch are two scopes: neither copy is a duplicate of the
// other, and each gets its vector.

function writer(store: Store, embedded: string[] = []): MemoryWriter {
  const config = resolveConfig({});
  return {
    store,
    config,
    schemas: createInputSchemas(config),
    embedder: store.guard.embedder({
      model: 'unit',
      dimensions: 2,
      embed: async (texts) => {
        embedded.push(...texts);
        return texts.map(() => Float32Array.from([1, 0]));
      },
    }),
  };
}

const vectorsOf = (store: Store, agentId: string, id: string) =>
  store.read((sql) => memoryVectors(sql, agentId, 'unit', [id]));

describe('rememberMany across scopes in one batch', () => {
  it('writes and embeds the same text once per agent, and dedups only within an agent', async () => {
    const store = await createTestStore({ vectorExtension: 'off' });
    const text = 'Same words, two agents.';
    const embedded: string[] = [];
    const results = await rememberMany(writer(store, embedded), [
      { agentId: 'a', content: text },
      { agentId: 'b', content: text },
      { agentId: 'a', content: text },
      { agentId: 'b', content: `  ${text}` },
    ]);
    const [a, b, aAgain, bAgain] = results;
    expect(a?.deduped).toBe(false);
    expect(b?.deduped).toBe(false);
    expect(b?.id).not.toBe(a?.id);
    expect(aAgain).toEqual({ id: a?.id, deduped: true });
    expect(bAgain).toEqual({ id: b?.id, deduped: true });
    expect(vectorsOf(store, 'a', a?.id ?? '')).toHaveLength(1);
    expect(vectorsOf(store, 'b', b?.id ?? '')).toHaveLength(1);
    // Embedding is paid once per agent and content, never for a duplicate of the same batch.
    expect(embedded).toEqual([text, text]);
  });
});
