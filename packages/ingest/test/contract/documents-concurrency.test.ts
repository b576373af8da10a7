// Several engines (each its own store and pool, as separate processes) ingesting one agent's
// documents at once on the run's PostgreSQL server: every document ends done, identical chunks of
// different documents are one shared memory, and deleting one document keeps what others share.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocumentParts, openServerParts, server } from './document-backends.js';

// Paragraphs of ~150 characters: with 200-character chunks, each is a chunk of its own.
const shared =
  'A paragraph every handbook copies word for word: the lighthouse keeper logs each ship that passes the cape, its flag, its cargo and the hour.';
const handbook = (n: number) =>
  [
    `Handbook ${n} begins with its own preface about harbour number ${n}, its quays, its cranes, its tides and the people who have worked there.`,
    shared,
    `Handbook ${n} ends with an index of the harbour's ships and a list of its keepers, oldest first, by year.`,
  ].join('\n\n');

describe.skipIf(!server.available)(
  `documents on one PostgreSQL database from several stores${server.available ? '' : ` (skipped: ${server.reason})`}`,
  () => {
    let engines: DocumentParts[];
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ parts: engines, close } = await openServerParts(3));
    }, 120_000);
    afterAll(async () => close?.());

    it('ingests concurrently: all done, shared chunks deduplicated, shared ones kept on delete', async () => {
      const [first, ...rest] = engines as [DocumentParts, ...DocumentParts[]];
      const added = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          (engines[n % engines.length] as DocumentParts).documents.add({
            agentId: 'crowd',
            content: handbook(n),
            path: `handbooks/${n}.md`,
          }),
        ),
      );
      expect(new Set(added.map((a) => a.outcome))).toEqual(new Set(['added']));
      // Every engine works the one queue at once until nothing is left.
      const ran = await Promise.all(engines.map((engine) => engine.runJobs()));
      expect(ran.flat()).toHaveLength(6);
      expect(ran.filter((results) => results.length > 0).length).toBeGreaterThan(1);
      const docs = await first.documents.list({ agentId: 'crowd' });
      expect(docs).toHaveLength(6);
      for (const doc of docs) expect(doc).toMatchObject({ status: 'done', error: null });

      const hits = await first.search({ agentId: 'crowd', query: 'lighthouse cape', limit: 50 });
      // The copied paragraph is one memory, reported once (from its oldest document).
      expect(new Set(hits.map((h) => h.memoryId)).size).toBe(1);
      const prefaces = await first.search({ agentId: 'crowd', query: 'preface harbour', limit: 50 });
      expect(new Set(prefaces.map((h) => h.documentId)).size).toBe(6);
      // Any engine answers the same.
      for (const engine of rest)
        expect(await engine.search({ agentId: 'crowd', query: 'lighthouse cape', limit: 50 })).toEqual(hits);

      // Deleting the document search reports the paragraph from forgets only its own chunks.
      const owner = hits[0]?.documentId ?? '';
      const deletion = await first.documents.delete({ agentId: 'crowd', id: owner });
      expect(deletion).toMatchObject({ deleted: true });
      expect(deletion.forgottenChunks).toBeGreaterThan(0);
      const after = await first.search({ agentId: 'crowd', query: 'lighthouse cape', limit: 50 });
      expect(after.map((h) => h.memoryId)).toEqual(hits.map((h) => h.memoryId));
      expect(after[0]?.documentId).not.toBe(owner);
    }, 120_000);
  },
);
