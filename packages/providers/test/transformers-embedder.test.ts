import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTransformersEmbedder, type TransformersEmbedder } from '../src/index.js';
import { loadTransformersModel } from '../src/transformers/model.js';
import { INSTALL_COMMAND } from '../src/transformers/peers.js';
import { TABLE, tinyOnnxModel, tinyTokenizerJson, type VOCAB, writeTinyModel } from './fixtures/tiny-model.js';

// Real inference: the tiny model is an embedding table run by onnxruntime-node, tokenized by
// @huggingface/tokenizers, so every expected vector below is worked out by hand from TABLE.

const SHIPPED = fileURLToPath(new URL('./fixtures/tiny-bert', import.meta.url));
const dirs: string[] = [];
const embedders: TransformersEmbedder[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'tiny-bert-'));
  dirs.push(dir);
  return dir;
};
/** In-process unless a test asks for the worker: a worker start costs about a second under tsx. */
const open = async (options: Parameters<typeof createTransformersEmbedder>[0]): Promise<TransformersEmbedder> => {
  const e = await createTransformersEmbedder({ worker: false, ...options });
  embedders.push(e);
  return e;
};
afterAll(async () => {
  await Promise.all(embedders.map((e) => e.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

type Token = (typeof VOCAB)[number];
const unit = (v: readonly number[]): number[] => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
/** Mean of the table rows of `tokens` ([CLS] and [SEP] included, as the tokenizer adds them). */
const mean = (tokens: readonly Token[]): number[] => {
  const rows = (['[CLS]', ...tokens, '[SEP]'] as const).map((t) => TABLE[t]);
  return [0, 1, 2, 3].map((d) => rows.reduce((s, r) => s + r[d]!, 0) / rows.length);
};
const close = (actual: Float32Array | undefined, expected: readonly number[]): void => {
  expect(actual).toHaveLength(expected.length);
  for (const [i, x] of expected.entries()) expect(actual![i]).toBeCloseTo(x, 6);
};
const norm = (v: Float32Array): number => Math.hypot(...v);

describe('transformers embedder on a tiny ONNX model', () => {
  it('ships the fixture the builder writes', () => {
    expect(readFileSync(join(SHIPPED, 'model.onnx'))).toEqual(Buffer.from(tinyOnnxModel()));
    expect(JSON.parse(readFileSync(join(SHIPPED, 'tokenizer.json'), 'utf8'))).toEqual(JSON.parse(tinyTokenizerJson()));
  });

  it('gives known vectors: mean over the tokens [CLS] … [SEP], unit length', async () => {
    const e = await open({ modelPath: SHIPPED, worker: true });
    expect(e.dimensions).toBe(4);
    expect(e.pooling).toBe('mean');
    expect(e.maxTokens).toBe(512);
    const [coffee, pets] = await e.embed(['Coffee', 'I like dogs!']);
    close(coffee, unit([1 / 3, 0, 0, 2 / 3]));
    // "dogs" is dog + ##s; "!" is not in the vocabulary: [UNK].
    close(pets, unit(mean(['i', 'like', 'dog', '##s', '[UNK]'])));
    expect(norm(pets!)).toBeCloseTo(1, 6);
  });

  it('honours the attention mask: padding in a batch changes nothing, batches equal one-by-one, order kept', async () => {
    const e = await open({ modelPath: SHIPPED, batchSize: 2, worker: true });
    const texts = [
      'coffee',
      'i like to drive fast cars and the hot tea',
      'cat',
      '',
      'the dog is a pet',
      'tea',
      'drink drink drink',
    ];
    const batched = await e.embed(texts);
    const single = await Promise.all(texts.map(async (t) => (await e.embed([t]))[0]));
    expect(batched).toHaveLength(texts.length);
    for (const [i, v] of batched.entries()) expect([...v]).toEqual([...single[i]!]);
    // The [PAD] row is (50, -50, 50, -50): any leak into the short texts' means would show.
    close(batched[0], unit([1 / 3, 0, 0, 2 / 3]));
    close(batched[2], unit(mean(['cat'])));
    close(batched[3], unit(mean([])));
  });

  it('leaves vectors unscaled with normalize: false', async () => {
    const e = await open({ modelPath: SHIPPED, normalize: false });
    close((await e.embed(['coffee']))[0], [1 / 3, 0, 0, 2 / 3]);
  });

  it('truncates to maxTokens keeping [CLS] and [SEP]', async () => {
    const e = await open({ modelPath: SHIPPED, maxTokens: 4 });
    const [long, short] = await e.embed(['coffee dog car drive', 'coffee dog']);
    expect([...long!]).toEqual([...short!]);
    close(long, unit(mean(['coffee', 'dog'])));
  });

  it('pools by [CLS] when asked or when 1_Pooling/config.json says so', async () => {
    const asked = await open({ modelPath: SHIPPED, pooling: 'cls' });
    close((await asked.embed(['coffee']))[0], [0, 0, 0, 1]);
    const configured = await open({ modelPath: writeTinyModel(tempDir(), { pooling: 'cls' }) });
    expect(configured.pooling).toBe('cls');
    close((await configured.embed(['car']))[0], [0, 0, 0, 1]);
  });

  it("uses the model's own sentence_embedding output when it has one, and finds onnx/model.onnx", async () => {
    const dir = writeTinyModel(tempDir(), { pooledOutput: true, tokenTypeIds: true, onnxSubdir: true });
    const e = await open({ modelPath: dir });
    expect(e.pooling).toBe('model');
    // The fixture's pooled output is the element-wise max: (1, 0.1, 0, 1) for [CLS] coffee tea [SEP].
    close((await e.embed(['coffee tea']))[0], unit([1, 0.1, 0, 1]));
    // Asking for a pooling reads the token states instead.
    const mean2 = await open({ modelPath: dir, pooling: 'mean' });
    close((await mean2.embed(['coffee tea']))[0], unit(mean(['coffee', 'tea'])));
  });

  it('applies query and document prefixes by purpose', async () => {
    const e = await open({ modelPath: SHIPPED, queryPrefix: 'cat ', documentPrefix: 'car ' });
    close((await e.embed(['coffee'], { purpose: 'query' }))[0], unit(mean(['cat', 'coffee'])));
    close((await e.embed(['coffee']))[0], unit(mean(['car', 'coffee'])));
  });

  it('derives its identity from the files and the settings that change vectors', async () => {
    const a = await open({ modelPath: SHIPPED });
    const again = await open({ modelPath: SHIPPED });
    expect(a.model).toMatch(/^tiny-bert#[0-9a-f]{12}$/);
    expect(again.model).toBe(a.model);
    // Same files elsewhere: same identity under the same name.
    const copy = join(tempDir(), 'tiny-bert');
    cpSync(SHIPPED, copy, { recursive: true });
    expect((await open({ modelPath: copy })).model).toBe(a.model);
    // Other weights (one table row changed), other tokenizer, other settings: other identities.
    const bytes = Buffer.from(readFileSync(join(copy, 'model.onnx')));
    bytes.writeFloatLE(0.25, bytes.indexOf(Buffer.from(new Float32Array([0.9, 0.1]).buffer)));
    writeFileSync(join(copy, 'model.onnx'), bytes);
    const reweighted = await open({ modelPath: copy });
    expect(reweighted.model).not.toBe(a.model);
    close((await reweighted.embed(['tea']))[0], unit([0.25 / 3, 0.1 / 3, 0, 2 / 3]));
    const others = await Promise.all([
      open({ modelPath: SHIPPED, maxTokens: 64 }),
      open({ modelPath: SHIPPED, pooling: 'cls' }),
      open({ modelPath: SHIPPED, queryPrefix: 'query: ' }),
    ]);
    const ids = new Set([a.model, reweighted.model, ...others.map((o) => o.model)]);
    expect(ids.size).toBe(5);
    expect((await open({ modelPath: SHIPPED, name: 'mini' })).model).toMatch(/^mini#/);
  });

  it('gives the same vectors on the worker thread and in-process', async () => {
    const texts = ['the hot coffee', 'a fast car', 'pet cats'];
    const off = await open({ modelPath: SHIPPED, worker: true });
    const here = await open({ modelPath: SHIPPED });
    expect(off.model).toBe(here.model);
    expect((await off.embed(texts)).map((v) => [...v])).toEqual((await here.embed(texts)).map((v) => [...v]));
  });

  it('fails fast with INVALID_CONFIG and a reason for a missing, incomplete or corrupt model', async () => {
    await expect(createTransformersEmbedder({ modelPath: join(tmpdir(), 'no-such-model-dir') })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      details: { reason: 'model-missing' },
      message: expect.stringMatching(/not a directory.*nothing is downloaded/),
    });
    const noModel = tempDir();
    writeFileSync(join(noModel, 'tokenizer.json'), tinyTokenizerJson());
    await expect(createTransformersEmbedder({ modelPath: noModel })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      details: { reason: 'model-missing' },
      message: expect.stringMatching(/no ONNX model.*model\.onnx, onnx\/model\.onnx/),
    });
    const noTokenizer = tempDir();
    writeFileSync(join(noTokenizer, 'model.onnx'), tinyOnnxModel());
    await expect(createTransformersEmbedder({ modelPath: noTokenizer })).rejects.toMatchObject({
      details: { reason: 'model-missing' },
      message: expect.stringMatching(/tokenizer\.json/),
    });
    const corrupt = writeTinyModel(tempDir());
    writeFileSync(join(corrupt, 'model.onnx'), 'this is not a protobuf');
    for (const worker of [true, false]) {
      await expect(createTransformersEmbedder({ modelPath: corrupt, worker })).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        details: { reason: 'model-invalid' },
        message: expect.stringMatching(/not a loadable ONNX model/),
      });
    }
    const badJson = writeTinyModel(tempDir());
    writeFileSync(join(badJson, 'tokenizer.json'), '{ "model": ');
    await expect(createTransformersEmbedder({ modelPath: badJson, worker: false })).rejects.toMatchObject({
      details: { reason: 'model-invalid' },
    });
    const positions = writeTinyModel(tempDir());
    writeFileSync(join(positions, 'config.json'), JSON.stringify({ max_position_embeddings: 8 }));
    expect((await open({ modelPath: positions })).maxTokens).toBe(8);
    await expect(createTransformersEmbedder({ modelPath: positions, maxTokens: 9 })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      details: { reason: 'option-invalid', option: 'maxTokens' },
    });
    await expect(createTransformersEmbedder({ modelPath: SHIPPED, batchSize: 0 })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      details: { reason: 'option-invalid', option: 'batchSize' },
    });
  });

  it('names the install command when a peer is missing', async () => {
    await expect(
      loadTransformersModel(
        { modelPath: SHIPPED },
        { runtime: 'onnxruntime-node-absent', tokenizers: '@huggingface/tokenizers' },
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      details: { reason: 'peer-missing', peer: 'onnxruntime-node-absent', install: INSTALL_COMMAND },
      message: expect.stringContaining(INSTALL_COMMAND),
    });
    await expect(
      loadTransformersModel(
        { modelPath: SHIPPED },
        { runtime: 'onnxruntime-node', tokenizers: '@huggingface/tokenizers-absent' },
      ),
    ).rejects.toMatchObject({ details: { reason: 'peer-missing', peer: '@huggingface/tokenizers-absent' } });
  });

  it('rejects calls after close', async () => {
    const e = await createTransformersEmbedder({ modelPath: SHIPPED });
    expect(await e.embed([])).toEqual([]);
    await e.close();
    await expect(e.embed(['coffee'])).rejects.toMatchObject({ code: 'PROVIDER_ERROR' });
  });

  it('is not loaded by importing @memory/providers, only by creating the embedder', () => {
    // onnxruntime's native library shows in the process's memory map once loaded (Linux).
    const script = `
      import { readFileSync } from 'node:fs';
      const loaded = () => readFileSync('/proc/self/maps', 'utf8').includes('libonnxruntime');
      const p = await import('@memory/providers');
      const before = loaded();
      const e = await p.createTransformersEmbedder({ modelPath: ${JSON.stringify(SHIPPED)}, worker: false });
      console.log(JSON.stringify({ before, after: loaded(), dims: e.dimensions }));`;
    const out = execFileSync(
      process.execPath,
      ['--conditions=@memory/source', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toEqual({ before: false, after: true, dims: 4 });
  });
});
