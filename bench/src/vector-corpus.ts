// Text corpora for the vector benchmarks. "Real" text is read at run time from ../shared/data
// (LoCoMo turns and SciFact abstract sentences, never copied into the repository); past the pool's
// size, texts are two pool entries joined, so a million distinct memories keep real word statistics.
// Queries are real questions (LoCoMo questions, SciFact claims) the memories never contain verbatim.
// The synthetic corpus is the remember benchmark's template generator.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSeededRandom } from '@memory/core';
import { parseCsv } from './csv.js';
import { createGenerator } from './synthetic.js';

/** Texts to store and queries to ask, deterministic for a seed. */
export interface TextCorpus {
  readonly name: string;
  texts(count: number): string[];
  /** The first `count` questions of the order that `seed` gives (each corpus has a default seed). */
  queries(count: number, seed?: number): string[];
}

interface LocomoSample {
  conversation: Record<string, unknown>;
  qa: Array<{ question: string }>;
}

/** The abstract column of SciFact's corpus is a Python list of sentence strings. */
function sentences(text: string): string[] {
  return [...text.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((m) =>
    (m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1'),
  );
}

function shuffle<T>(items: T[], seed: number): T[] {
  const rnd = createSeededRandom(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd.float() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** LoCoMo turns and SciFact sentences as memories; LoCoMo questions and SciFact claims as queries. */
/** The data files {@link createRealCorpus} reads, relative to the data directory. */
export const REAL_CORPUS_FILES = ['locomo/locomo10.json', 'scifact/corpus_train.csv', 'scifact/claims_train.csv'];

export function createRealCorpus(dataDir: string): TextCorpus {
  const samples = JSON.parse(readFileSync(join(dataDir, 'locomo', 'locomo10.json'), 'utf8')) as LocomoSample[];
  const pool = new Set<string>();
  const questions: string[] = [];
  for (const sample of samples) {
    for (const value of Object.values(sample.conversation)) {
      if (!Array.isArray(value)) continue;
      for (const turn of value as Array<{ speaker?: string; text?: string }>)
        if (turn.text) pool.add(`${turn.speaker ?? 'someone'}: ${turn.text}`);
    }
    for (const qa of sample.qa) if (typeof qa.question === 'string') questions.push(qa.question);
  }
  const [header, ...rows] = parseCsv(readFileSync(join(dataDir, 'scifact', 'corpus_train.csv'), 'utf8'));
  const titleCol = header?.indexOf('title') ?? -1;
  const abstractCol = header?.indexOf('abstract') ?? -1;
  for (const row of rows) {
    const title = row[titleCol];
    if (title) pool.add(title);
    for (const s of sentences(row[abstractCol] ?? '')) if (s.split(' ').length >= 4) pool.add(s);
  }
  const [claimHeader, ...claimRows] = parseCsv(readFileSync(join(dataDir, 'scifact', 'claims_train.csv'), 'utf8'));
  const claimCol = claimHeader?.indexOf('claim') ?? -1;
  for (const row of claimRows) if (row[claimCol]) questions.push(row[claimCol] as string);
  const base = shuffle([...pool], 1);
  const asked = shuffle([...questions], 2);
  return {
    name: 'real text',
    texts(count) {
      const out = base.slice(0, count);
      const rnd = createSeededRandom(3);
      const pick = () => base[Math.floor(rnd.float() * base.length)] as string;
      while (out.length < count) out.push(`${pick()} ${pick()}`);
      return out;
    },
    queries(count, seed) {
      const order = seed === undefined ? asked : shuffle([...questions], seed);
      return Array.from({ length: count }, (_, i) => order[i % order.length] as string);
    },
  };
}

/** The remember benchmark's template memories and questions. */
export function createSyntheticCorpus(): TextCorpus {
  return {
    name: 'synthetic',
    texts(count) {
      const gen = createGenerator(42);
      const out = Array.from({ length: count }, () => gen.memory().content);
      // The templates repeat (about 760k distinct in 1M): past them, two template memories joined
      // (appended, so the first distinct texts stay those of smaller runs), as the real corpus does.
      const distinct = new Set(out);
      while (distinct.size < count) {
        const joined = `${gen.memory().content} ${gen.memory().content}`;
        if (!distinct.has(joined)) out.push(joined);
        distinct.add(joined);
      }
      return out;
    },
    queries(count, seed) {
      const gen = createGenerator(seed ?? 7);
      return Array.from({ length: count }, () => gen.query());
    },
  };
}

/**
 * Texts kept outside the JavaScript heap: one UTF-8 buffer and the offset of each text, decoded when
 * asked for. A bench that loads a million memories holds its corpus this way so the garbage
 * collector's marking (which walks every live string on the main thread) measures the engine's heap,
 * not a million of the bench's own strings.
 */
export interface PackedTexts {
  readonly length: number;
  /** Text `i` (a new string each call). */
  at(i: number): string;
  /** Texts `start` to `end` (exclusive) as strings. */
  slice(start: number, end?: number): string[];
  /** The first `count` texts (sharing the buffers). */
  head(count: number): PackedTexts;
}

export function packTexts(texts: readonly string[]): PackedTexts {
  const offsets = new Float64Array(texts.length + 1);
  let bytes = 0;
  texts.forEach((t, i) => {
    offsets[i] = bytes;
    bytes += Buffer.byteLength(t, 'utf8');
  });
  offsets[texts.length] = bytes;
  const buffer = Buffer.allocUnsafe(bytes);
  texts.forEach((t, i) => {
    buffer.write(t, offsets[i] as number, 'utf8');
  });
  return packedView(buffer, offsets, texts.length);
}

function packedView(buffer: Buffer, offsets: Float64Array, length: number): PackedTexts {
  const at = (i: number) => {
    if (i < 0 || i >= length) throw new RangeError(`text ${i} of ${length}`);
    return buffer.toString('utf8', offsets[i] as number, offsets[i + 1] as number);
  };
  return {
    length,
    at,
    slice(start, end = length) {
      const out: string[] = [];
      for (let i = Math.max(0, start); i < Math.min(end, length); i++) out.push(at(i));
      return out;
    },
    head: (count) => packedView(buffer, offsets, Math.min(count, length)),
  };
}
