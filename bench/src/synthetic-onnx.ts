import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A synthetic encoder with the compute of a small sentence-transformer, for bench:transformers:
// an embedding table, then `layers` residual feed-forward blocks (hidden → 4·hidden → hidden,
// ReLU), which is where most of all-MiniLM-L6-v2's CPU time goes (6 layers, 384 → 1536 → 384).
// Random weights: the vectors mean nothing, the time per token is what is measured.

function varint(n: number): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}
const tag = (field: number, wire: number): number[] => varint((field << 3) | wire);
const int = (field: number, n: number): number[] => [...tag(field, 0), ...varint(n)];
const bytes = (field: number, data: ArrayLike<number>): number[] => [
  ...tag(field, 2),
  ...varint(data.length),
  ...Array.from(data),
];
const str = (field: number, s: string): number[] => bytes(field, Buffer.from(s, 'utf8'));

function valueInfo(name: string, elemType: number, dims: readonly (string | number)[]): number[] {
  const shape = dims.flatMap((d) => bytes(1, typeof d === 'string' ? str(2, d) : int(1, d)));
  return [...str(1, name), ...bytes(2, bytes(1, [...int(1, elemType), ...bytes(2, shape)]))];
}
const node = (op: string, inputs: readonly string[], output: string, attributes: number[][] = []): number[] => [
  ...inputs.flatMap((i) => str(1, i)),
  ...str(2, output),
  ...str(3, output),
  ...str(4, op),
  ...attributes.flatMap((a) => bytes(5, a)),
];

/** A float tensor initializer; its raw data is appended as a Buffer to keep large weights cheap. */
function initializer(name: string, dims: readonly number[], random: () => number, scale: number): Buffer {
  const values = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < values.length; i++) values[i] = (random() * 2 - 1) * scale;
  const raw = Buffer.from(values.buffer);
  const head = Buffer.from([
    ...dims.flatMap((d) => int(1, d)),
    ...int(2, 1),
    ...str(8, name),
    ...tag(9, 2),
    ...varint(raw.length),
  ]);
  const body = Buffer.concat([head, raw]);
  return Buffer.concat([Buffer.from([...tag(5, 2), ...varint(body.length)]), body]);
}

/** Writes `model.onnx` and a WordPiece `tokenizer.json` (every word of the texts is in its vocabulary). */
export function writeSyntheticEncoder(
  dir: string,
  options: { hidden: number; layers: number; words: readonly string[] },
): void {
  const { hidden, layers } = options;
  let seed = 42;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', ...new Set(options.words)];
  const parts: Buffer[] = [initializer('embeddings', [vocab.length, hidden], random, 1)];
  const nodes: number[][] = [
    node('Gather', ['embeddings', 'input_ids'], 'h0'),
    node('Shape', ['attention_mask'], 'mask_shape'),
  ];
  for (let l = 0; l < layers; l++) {
    parts.push(
      initializer(`w1_${l}`, [hidden, hidden * 4], random, 0.05),
      initializer(`w2_${l}`, [hidden * 4, hidden], random, 0.05),
    );
    nodes.push(
      node('MatMul', [`h${l}`, `w1_${l}`], `up${l}`),
      node('Relu', [`up${l}`], `act${l}`),
      node('MatMul', [`act${l}`, `w2_${l}`], `down${l}`),
      node('Add', [`h${l}`, `down${l}`], l === layers - 1 ? 'last_hidden_state' : `h${l + 1}`),
    );
  }
  const graph = Buffer.concat([
    Buffer.from(nodes.flatMap((n) => bytes(1, n))),
    Buffer.from(str(2, 'synthetic')),
    ...parts,
    Buffer.from([
      ...bytes(11, valueInfo('input_ids', 7, ['batch', 'sequence'])),
      ...bytes(11, valueInfo('attention_mask', 7, ['batch', 'sequence'])),
      ...bytes(12, valueInfo('last_hidden_state', 1, ['batch', 'sequence', hidden])),
      ...bytes(12, valueInfo('mask_shape', 7, [2])),
    ]),
  ]);
  const model = Buffer.concat([
    Buffer.from([...int(1, 8), ...tag(7, 2), ...varint(graph.length)]),
    graph,
    Buffer.from(bytes(8, [...str(1, ''), ...int(2, 13)])),
  ]);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), model);
  const special = (content: string, id: number) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const sp = (id: string) => ({ SpecialToken: { id, type_id: 0 } });
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: vocab.slice(0, 4).map(special),
      normalizer: {
        type: 'BertNormalizer',
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [sp('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, sp('[SEP]')],
        pair: [
          sp('[CLS]'),
          { Sequence: { id: 'A', type_id: 0 } },
          sp('[SEP]'),
          { Sequence: { id: 'B', type_id: 1 } },
          sp('[SEP]'),
        ],
        special_tokens: {
          '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
          '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
        },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
      },
    }),
  );
}
