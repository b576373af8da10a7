import { prepareContent } from '@memory/store';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText } from '../../ingest/src/documents/chunk-text.js';
import { DOCUMENT_PART_CHARS, textParts } from '../../ingest/src/documents/document-text.js';
import { extractText, extractTextParts } from '../../ingest/src/documents/extract-text.js';
import { hashText } from '../../ingest/src/documents/hash-text.js';
import type { EmbeddingProvider } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

// Issue 11, item 13: a document's chunks are prepared, embedded and indexed window by window, and
// a large stored text is chunked from its parts without joining them; neither changes the result.

const WORDS = ['kettle', 'cupboard', 'Kestrel', 'budget', 'tea', 'migration', 'Dana', 'review', 'the', 'of', 'café'];
/** Prose with sentences, CRLF line ends and paragraphs, about `chars` characters; no two chunks alike. */
const prose = (chars: number) => {
  const out: string[] = [];
  let size = 0;
  let x = 7;
  for (let i = 0; size < chars; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const end = i % 97 === 96 ? '.\r\n\r\n' : i % 29 === 28 ? '\r\n' : i % 13 === 12 ? '. ' : ' ';
    const word = `${WORDS[x % WORDS.length]}${x % 50 === 0 ? String(x % 1000) : ''}${end}`;
    out.push(word);
    size += word.length;
  }
  return out.join('').slice(0, chars);
};

interface Outcome {
  readonly document: unknown;
  readonly chunks: Array<{ chunk_index: number; id: string; content: string; vector: Buffer | null }>;
}

/** Ingests `content` and reads back every chunk memory in document order, with its stored vector. */
async function ingest(content: string, windowBytes: number): Promise<Outcome & { linkedDuringEmbedding: number[] }> {
  const db = new Database(':memory:');
  const inner = createBagOfWordsEmbedder();
  const linkedDuringEmbedding: number[] = [];
  // Notes, at each embedding call, how many chunks were already indexed: windows interleave the two.
  const embedder: EmbeddingProvider = {
    model: inner.model,
    dimensions: inner.dimensions,
    embed(texts) {
      linkedDuringEmbedding.push((db.prepare('SELECT count(*) AS n FROM document_memories').get() as { n: number }).n);
      return inner.embed(texts);
    },
  };
  const { engine } = await createTestEngine({
    database: { database: db },
    embedder,
    config: { documents: { maxBytes: 8 * 1024 * 1024, windowBytes }, hints: { enabled: false } },
  });
  const { id } = await engine.documents.add({ agentId: 'a', content, title: 'Handbook' });
  await engine.runDue();
  const { updatedAt, completedAt, ...document } = (await engine.documents.get({ agentId: 'a', id })) ?? {};
  const chunks = db
    .prepare(
      `SELECT d.chunk_index, m.id, m.content, e.vector FROM document_memories d JOIN memories m ON m.id = d.memory_id
       LEFT JOIN embeddings e ON e.source_type = 'memory' AND e.source_id = m.id
       WHERE d.document_id = ? ORDER BY d.chunk_index`,
    )
    .all(id) as Outcome['chunks'];
  await engine.close();
  return { document, chunks, linkedDuringEmbedding };
}

describe('document windows', () => {
  it('index a large stored document window by window with the same memories, links and vectors as in one window', async () => {
    // Over one stored part, so the ingest reads it back in parts; CRLF ends straddle part boundaries.
    const content = prose(DOCUMENT_PART_CHARS + 300_000);
    const windowed = await ingest(content, 64 * 1024);
    const whole = await ingest(content, 1024 * 1024 * 1024);
    expect(windowed.document).toMatchObject({ status: 'done', chunkCount: whole.chunks.length });
    expect(windowed.document).toEqual(whole.document);
    // The same chunks, memories and vectors. Their ids are not compared: the test's id source is a
    // counter, and a memory-writer call takes its memories' ids before their history rows' ids, so
    // windows (several calls) number them in another order than one call does.
    const withoutIds = (o: Outcome) => o.chunks.map(({ id: _, ...chunk }) => chunk);
    expect(withoutIds(windowed)).toEqual(withoutIds(whole));
    expect(new Set(windowed.chunks.map((c) => c.id)).size).toBe(windowed.chunks.length);
    expect(windowed.chunks.every((c) => c.vector !== null)).toBe(true);
    // The chunks are those of the whole text (line ends normalized), stored as memories, in order.
    const expected = chunkText(extractText(content, 'text/plain').text, 2000, 200).map(
      (c) => prepareContent(c).content,
    );
    expect(windowed.chunks.map((c) => c.content)).toEqual(expected);
    expect(windowed.chunks.map((c) => c.chunk_index)).toEqual(expected.map((_, i) => i));
    // Windows really interleaved: later embedding calls came after earlier chunks were indexed.
    expect(Math.max(...windowed.linkedDuringEmbedding)).toBeGreaterThan(0);
    expect(Math.max(...whole.linkedDuringEmbedding)).toBe(0);
  });
});

describe('a text in parts', () => {
  const text = fc
    .array(fc.constantFrom('a', 'b', ' ', '\n', '\n\n', '\r\n', '\r', '. ', 'word', '🙂', '\t', '\u00a0', '"', '。'), {
      maxLength: 300,
    })
    .map((pieces) => pieces.join(''));

  it('chunks, extracts and hashes as the joined text does, wherever the parts are cut', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 40 }),
        async (whole, size, overlap, partChars) => {
          // Stored parts never end inside a surrogate pair (textParts keeps pairs together).
          const parts = [...textParts(whole, partChars)];
          expect(parts.join('')).toBe(whole);
          expect(chunkText(parts, size, overlap)).toEqual(chunkText(whole, size, overlap));
          const extracted = extractTextParts(parts, 'text/markdown');
          const joined = extractText(whole, 'text/markdown');
          const partsText = typeof extracted.text === 'string' ? extracted.text : extracted.text.join('');
          expect(partsText).toBe(joined.text);
          expect(extracted.title).toBe(joined.title);
          expect(await hashText(extracted.text)).toBe(await hashText(joined.text));
          expect(chunkText(extracted.text, size, overlap)).toEqual(chunkText(joined.text, size, overlap));
        },
      ),
      { numRuns: 300 },
    );
  });
});
