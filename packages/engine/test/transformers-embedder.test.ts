import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSequentialIds } from '@memory/core';
import { createTransformersEmbedder, type TransformersEmbedder } from '@memory/providers';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

// The engine with a real local ONNX model: the tiny embedding-table model that @memory/providers'
// tests build and ship (vocabulary: coffee, tea, drink, hot, cat, dog, pet, car, drive, fast, ...;
// its axes are drinks, pets, vehicles). Real onnxruntime inference on a worker thread.

const SHIPPED = join(import.meta.dirname, '..', '..', 'providers', 'test', 'fixtures', 'tiny-bert');
const dir = mkdtempSync(join(tmpdir(), 'memory-onnx-'));
const embedders: TransformersEmbedder[] = [];
afterAll(async () => {
  await Promise.all(embedders.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function embedderFor(modelPath: string): Promise<TransformersEmbedder> {
  const e = await createTransformersEmbedder({ modelPath });
  embedders.push(e);
  return e;
}

describe('engine with the transformers embedder', () => {
  it('recalls by meaning with no shared word, then re-embeds everything when the model files change', async () => {
    const path = join(dir, 'memory.db');
    const first = await embedderFor(SHIPPED);
    const opened = await createTestEngine({ database: { path }, embedder: first, ids: createSequentialIds('a-') });
    let engine = opened.engine;
    const coffee = await engine.remember({ agentId: 'a', content: 'I like hot coffee' });
    const dog = await engine.remember({ agentId: 'a', content: 'the dog is a pet' });
    await engine.remember({ agentId: 'a', content: 'I drive a fast car' });
    await engine.remember({ agentId: 'b', content: 'hot coffee for b' });

    const drink = await engine.recall({ agentId: 'a', query: 'tea' });
    expect(drink.vectorCompleteness).toBe('exact');
    expect(drink.results[0]?.id).toBe(coffee.id);
    expect(drink.results[0]?.channels.lexical).toBeUndefined();
    expect(drink.results[0]?.channels.semantic).toBeGreaterThan(0.5);
    expect(drink.results.every((r) => !r.content.endsWith('for b'))).toBe(true);
    expect((await engine.recall({ agentId: 'a', query: 'cats' })).results[0]?.id).toBe(dog.id);
    expect((await engine.health({ agentId: 'a' })).vectors).toEqual({
      model: first.model,
      current: 3,
      missing: 0,
      otherModel: 0,
    });
    await engine.close();

    // The host swaps the weights in place (another model under the same folder name): the identity
    // changes with the files, so the engine sees another model and re-embeds.
    const swapped = join(dir, 'tiny-bert');
    cpSync(SHIPPED, swapped, { recursive: true });
    const bytes = Buffer.from(readFileSync(join(swapped, 'model.onnx')));
    bytes.writeFloatLE(0.95, bytes.indexOf(Buffer.from(new Float32Array([0.9, 0.1]).buffer)));
    writeFileSync(join(swapped, 'model.onnx'), bytes);
    const second = await embedderFor(swapped);
    expect(second.model).not.toBe(first.model);
    engine = (await createTestEngine({ database: { path }, embedder: second, ids: createSequentialIds('b-') })).engine;
    expect((await engine.health({ agentId: 'a' })).vectors).toMatchObject({
      model: second.model,
      current: 0,
      otherModel: 3,
    });
    await engine.runDue();
    expect((await engine.health({ agentId: 'a' })).vectors).toMatchObject({ current: 3, otherModel: 0 });
    const again = await engine.recall({ agentId: 'a', query: 'tea' });
    expect(again.vectorCompleteness).toBe('exact');
    expect(again.results[0]?.id).toBe(coffee.id);
    await engine.close();
  });
});
