import {
  createManualScheduler,
  defaultConfig,
  type EmbeddingProvider,
  type LlmProvider,
  type MemoryConfig,
  silentLogger,
} from '@memory/core';
import {
  findMemoryProgram,
  listRecallTelemetryProgram,
  type NewMemory,
  type PortableStore,
  prepareContent,
} from '@memory/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAfterResponseWriter,
  createHintsHandler,
  createRecall,
  type RecallResponse,
  type RecallResult,
} from '../../src/index.js';
import { type OpenBackend, recallBackends } from './backends.js';

// One recall contract for every backend: each test writes the same data to SQLite, PGlite and the
// real server (when the run has one), recalls on each, asserts the outcome, and asserts that every
// PostgreSQL backend returns what SQLite returns: the same ids in the same order, the same tiers,
// windows and warnings, scores equal within float tolerance.

const BACKENDS = await recallBackends();
const open: OpenBackend[] = [];
const skipped = BACKENDS.filter((b) => b.skip !== '').map((b) => `${b.name} (skipped: ${b.skip})`);

beforeAll(async () => {
  for (const backend of BACKENDS) if (backend.skip === '') open.push(await backend.open());
}, 120_000);
afterAll(async () => {
  for (const backend of open.splice(0)) await backend.close();
});

const DAY = 86_400_000;
// Traversal stops at a wall-clock budget (25 ms by default), and PGlite's statements are slow (it is
// WebAssembly): the walk is compared without that bound, which only makes results partial.
const UNHURRIED: MemoryConfig = { ...defaultConfig, traversal: { ...defaultConfig.traversal, timeBudgetMs: 10_000 } };

const memory = (agentId: string, content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  agentId,
  content: prepareContent(content),
  type: 'fact',
  importance: 0.5,
  audit: { actor: { id: 'tester', type: 'operator' } },
  ...extra,
});

/** A deterministic bag-of-words embedder: texts sharing words point the same way. */
function wordEmbedder(dimensions = 32): EmbeddingProvider {
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimensions);
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
      const a = (h >>> 0) % dimensions;
      const b = (h >>> 8) % dimensions;
      v[a] = (v[a] as number) + 1;
      v[b] = (v[b] as number) + 0.5;
    }
    return v;
  };
  return {
    model: `words-${dimensions}`,
    dimensions,
    embed: async (texts) => texts.map(embedOne),
  };
}

function recallOn(
  backend: OpenBackend,
  options: { embedder?: EmbeddingProvider; config?: MemoryConfig } = {},
): (input: Record<string, unknown>) => Promise<RecallResponse<RecallResult>> {
  const recall = createRecall({
    store: backend.store,
    config: options.config ?? defaultConfig,
    embedder: options.embedder,
  });
  return (input) => recall(input) as Promise<RecallResponse<RecallResult>>;
}

/** What must agree across backends. */
function view(response: RecallResponse<RecallResult>) {
  return {
    ids: response.results.map((r) => r.id),
    scores: response.results.map((r) => r.score),
    tiers: response.results.map((r) => r.tier),
    channels: response.results.map((r) => r.channels),
    entities: response.results.map((r) => r.entities ?? []),
    window: response.window,
    completeness: response.vectorCompleteness,
    warnings: response.warnings,
  };
}

type View = ReturnType<typeof view>;

/** Every backend's view equals SQLite's: ids, tiers, windows, warnings exactly; numbers within `digits`. */
function expectSameAsSqlite(views: ReadonlyArray<{ name: string; view: View }>, digits = 9): void {
  const [reference, ...others] = views;
  if (!reference) throw new Error('no backend ran');
  expect(reference.name).toBe('sqlite');
  for (const other of others) {
    const context = `${other.name} vs sqlite`;
    expect(other.view.ids, context).toEqual(reference.view.ids);
    expect(other.view.tiers, context).toEqual(reference.view.tiers);
    expect(other.view.window, context).toEqual(reference.view.window);
    expect(other.view.warnings, context).toEqual(reference.view.warnings);
    expect(other.view.entities, context).toEqual(reference.view.entities);
    other.view.scores.forEach((score, i) => {
      expect(score, context).toBeCloseTo(reference.view.scores[i] as number, digits);
    });
    other.view.channels.forEach((channels, i) => {
      const expected = reference.view.channels[i] ?? {};
      expect(Object.keys(channels).sort(), context).toEqual(Object.keys(expected).sort());
      for (const [name, value] of Object.entries(channels))
        expect(value, `${context}: ${name}`).toBeCloseTo(expected[name as keyof typeof expected] as number, digits);
    });
  }
}

/** Runs a scenario on every open backend; returns each one's outcome, SQLite's first. */
async function onEvery<T>(scenario: (backend: OpenBackend) => Promise<T>): Promise<Array<{ name: string; out: T }>> {
  const outs: Array<{ name: string; out: T }> = [];
  for (const backend of open) outs.push({ name: backend.name, out: await scenario(backend) });
  return outs;
}

const views = <T extends { response: RecallResponse<RecallResult> }>(outs: ReadonlyArray<{ name: string; out: T }>) =>
  outs.map(({ name, out }) => ({ name, view: view(out.response) }));

describe(`recall contract (${BACKENDS.map((b) => b.name).join(', ')}${skipped.length ? `; ${skipped.join('; ')}` : ''})`, () => {
  it('lexical: the same BM25 order and scores on every backend, another agent’s rows never returned', async () => {
    const outs = await onEvery(async (b) => {
      const created = await b.remember('lex-a', [
        memory('lex-a', 'The harbour ferry leaves at seven every morning'),
        memory('lex-a', 'Ferry tickets are cheaper on weekdays'),
        memory('lex-a', 'Ferry ferry ferry: the island ferry timetable changed'),
        memory('lex-a', 'The bakery near the harbour opens early'),
        memory('lex-a', 'Nothing about boats here at all'),
      ]);
      await b.remember('lex-b', [memory('lex-b', 'Ferry ferry harbour ferry for the other agent')]);
      const response = await recallOn(b)({ agentId: 'lex-a', query: 'ferry harbour', windowDays: null });
      return { response, unrelated: created[4]?.id };
    });
    for (const { out } of outs) {
      const ids = out.response.results.map((r) => r.id);
      expect(ids.length).toBeGreaterThanOrEqual(4);
      expect(ids.every((id) => id.startsWith('lex-a'))).toBe(true);
      expect(ids).not.toContain(out.unrelated);
      expect(out.response.results[0]?.channels.lexical).toBe(1);
    }
    expectSameAsSqlite(views(outs));
  });

  it('scope purity: another agent’s writes change neither the results nor the scores', async () => {
    const outs = await onEvery(async (b) => {
      await b.remember('pure-a', [
        memory('pure-a', 'Quarterly budget review with the finance team'),
        memory('pure-a', 'The budget for travel was cut'),
        memory('pure-a', 'Review the onboarding checklist'),
      ]);
      const recall = recallOn(b);
      const before = await recall({ agentId: 'pure-a', query: 'budget review', windowDays: null });
      const others = await b.remember(
        'pure-b',
        Array.from({ length: 30 }, (_, i) =>
          memory('pure-b', `budget budget review ${i} budget of another scope entirely`),
        ),
      );
      await b.hints('pure-b', others[0]?.id ?? '', ['What was the budget review about?']);
      const after = await recall({ agentId: 'pure-a', query: 'budget review', windowDays: null });
      return { before, response: after };
    });
    for (const { out } of outs) {
      expect(view(out.response)).toEqual(view(out.before));
      expect(out.response.results.every((r) => r.id.startsWith('pure-a'))).toBe(true);
    }
    expectSameAsSqlite(views(outs));
  });

  it('tie order: equal scores come back in the same order on every backend', async () => {
    const outs = await onEvery(async (b) => {
      await b.remember('tie-a', [
        memory('tie-a', 'alpha beta gamma'),
        memory('tie-a', 'gamma beta alpha'),
        memory('tie-a', 'beta gamma alpha'),
        memory('tie-a', 'alpha gamma beta'),
      ]);
      return { response: await recallOn(b)({ agentId: 'tie-a', query: 'alpha', windowDays: null }) };
    });
    for (const { out } of outs) {
      const scores = out.response.results.map((r) => r.score);
      expect(scores).toHaveLength(4);
      expect(new Set(scores).size).toBe(1);
    }
    expectSameAsSqlite(views(outs));
  });

  it('hints: a memory found only through its prospective hint, with the same hint score', async () => {
    const outs = await onEvery(async (b) => {
      const [dana, plants] = await b.remember('hint-a', [
        memory('hint-a', 'Dana moved to Lisbon in March'),
        memory('hint-a', 'The office plants need water'),
      ]);
      await b.hints('hint-a', dana?.id ?? '', ['Where does Dana live now?', 'When did the relocation happen?']);
      await b.hints('hint-a', plants?.id ?? '', ['Which relocation plans exist for plants?']);
      return {
        dana: dana?.id,
        response: await recallOn(b)({ agentId: 'hint-a', query: 'relocation', windowDays: null }),
      };
    });
    for (const { out } of outs) {
      const ids = out.response.results.map((r) => r.id);
      expect(ids).toContain(out.dana);
      expect(out.response.results.find((r) => r.id === out.dana)?.channels.hint).toBeGreaterThan(0);
    }
    expectSameAsSqlite(views(outs));
  });

  it('the hints worker: reads, asks the model outside the transaction, stores hints recall then finds', async () => {
    const llm: LlmProvider = {
      generate: async () => ({ text: '1. Where is the spare key hidden?\n2. Who has a copy of the key?' }),
    };
    const outs = await onEvery(async (b) => {
      const [key] = await b.remember('worker-a', [memory('worker-a', 'The spare key is under the blue flowerpot')]);
      const handler = createHintsHandler({ store: b.store, llm, config: defaultConfig });
      const done = await handler({ agentId: 'worker-a', memoryId: key?.id ?? '' }, new AbortController().signal);
      const again = await handler({ agentId: 'worker-a', memoryId: key?.id ?? '' }, new AbortController().signal);
      const gone = await handler({ agentId: 'worker-b', memoryId: key?.id ?? '' }, new AbortController().signal);
      const response = await recallOn(b)({ agentId: 'worker-a', query: 'copy', windowDays: null });
      return { done, again, gone, key: key?.id, response };
    });
    for (const { name, out } of outs) {
      expect(out.done, name).toEqual({ hints: 2 });
      expect(out.again, name).toEqual({ hints: 0 });
      expect(out.gone, name).toEqual({ hints: 0, skipped: 'memory not found' });
      expect(
        out.response.results.map((r) => r.id),
        name,
      ).toEqual([out.key]);
      expect(out.response.results[0]?.channels.hint, name).toBe(1);
    }
    expectSameAsSqlite(views(outs));
  });

  it('traversal: claims of the named entity and of its dependency bring their memories, in the linked tier', async () => {
    const outs = await onEvery(async (b) => {
      const [m1, m2, m3, m4] = await b.remember('trav-a', [
        memory('trav-a', 'Signed the new contract last week'),
        memory('trav-a', 'The launch slipped by two weeks'),
        memory('trav-a', 'Orion standup notes'),
        memory('trav-a', 'Orion standup notes moved'),
      ]);
      const now = b.clock.now();
      await b.exec([
        ...entity('trav-e1', 'trav-a', 'Orion', now),
        ...entity('trav-e2', 'trav-a', 'Vega', now),
        [
          `INSERT INTO entity_aspects (id, agent_id, entity_id, name, canonical_name, weight, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?)`,
          'trav-s1',
          'trav-a',
          'trav-e1',
          'contracts',
          'contracts',
          1,
          now,
          now,
        ],
        [
          `INSERT INTO entity_aspects (id, agent_id, entity_id, name, canonical_name, weight, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?)`,
          'trav-s2',
          'trav-a',
          'trav-e2',
          'schedule',
          'schedule',
          0.5,
          now,
          now,
        ],
        claim('trav-c1', 'trav-a', 'trav-s1', 'trav-e1', 'contract signed', m1?.id ?? '', now),
        claim('trav-c2', 'trav-a', 'trav-s2', 'trav-e2', 'launch slipped', m2?.id ?? '', now),
        // A claim that was superseded: its memory ranks as no longer current.
        claim('trav-c3', 'trav-a', 'trav-s1', 'trav-e1', 'standup moved', m4?.id ?? '', now),
        ["UPDATE entity_attributes SET status = 'superseded', superseded_at = ? WHERE id = ?", now, 'trav-c3'],
        [
          `INSERT INTO entity_dependencies (id, agent_id, source_entity_id, target_entity_id, dependency_type, strength, confidence, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'depends_on', 0.9, 1, 'active', ?, ?)`,
          'trav-d1',
          'trav-a',
          'trav-e1',
          'trav-e2',
          now,
          now,
        ],
        [
          `INSERT INTO memory_entity_mentions (memory_id, entity_id, agent_id, mention_text, confidence, created_at)
           VALUES (?, ?, ?, ?, 1, ?)`,
          m3?.id ?? '',
          'trav-e1',
          'trav-a',
          'Orion',
          now,
        ],
        [
          `INSERT INTO memory_entity_mentions (memory_id, entity_id, agent_id, mention_text, confidence, created_at)
           VALUES (?, ?, ?, ?, 1, ?)`,
          m4?.id ?? '',
          'trav-e1',
          'trav-a',
          'Orion',
          now,
        ],
        ['UPDATE entities SET mentions = 2 WHERE id = ?', 'trav-e1'],
      ]);
      return {
        ids: [m1?.id, m2?.id, m3?.id, m4?.id],
        response: await recallOn(b, { config: UNHURRIED })({
          agentId: 'trav-a',
          query: 'what about orion',
          windowDays: null,
          explain: true,
        }),
      };
    });
    for (const { out } of outs) {
      const byId = new Map(out.response.results.map((r) => [r.id as string, r]));
      const [m1, m2, m3, m4] = out.ids;
      expect(byId.get(m1 ?? '')?.explanation?.path).toMatchObject({ entityId: 'trav-e1', hops: 0, claimId: 'trav-c1' });
      expect(byId.get(m2 ?? '')?.explanation?.path).toMatchObject({ entityId: 'trav-e2', hops: 1, claimId: 'trav-c2' });
      expect(byId.get(m1 ?? '')?.tier).toBe('linked');
      expect(byId.get(m3 ?? '')?.entities).toEqual([{ id: 'trav-e1', name: 'Orion' }]);
      // Both standup notes match the query alike; the one whose claim was superseded ranks lower.
      const order: string[] = out.response.results.map((r) => r.id);
      expect(order.indexOf(m3 ?? '')).toBeLessThan(order.indexOf(m4 ?? ''));
      expect(byId.get(m4 ?? '')?.explanation?.adjustments).toHaveProperty('currentness');
    }
    expectSameAsSqlite(views(outs));
  });

  it('host links: memories linked to a passed reference, and to one the query names by label', async () => {
    const outs = await onEvery(async (b) => {
      const [dana, invoice] = await b.remember('link-a', [
        memory('link-a', 'Prefers morning calls', {
          linkedEntities: [{ type: 'contact', refId: 'c-42', label: 'Dana Whitfield' }],
        }),
        memory('link-a', 'Asked for the invoice twice', { linkedEntities: [{ type: 'thread', refId: 't-7' }] }),
        memory('link-a', 'Unrelated note about lunch'),
      ]);
      const recall = recallOn(b);
      const passed = await recall({
        agentId: 'link-a',
        query: 'anything',
        windowDays: null,
        linkedEntities: [{ type: 'thread', refId: 't-7' }],
      });
      const named = await recall({ agentId: 'link-a', query: 'what about dana whitfield', windowDays: null });
      return { passed, response: named, dana: dana?.id, invoice: invoice?.id };
    });
    for (const { out } of outs) {
      expect(out.passed.results.map((r) => r.id)).toEqual([out.invoice]);
      expect(out.response.results[0]?.id).toBe(out.dana);
      expect(out.response.results[0]?.tier).toBe('linked');
    }
    expectSameAsSqlite(views(outs));
    expectSameAsSqlite(outs.map(({ name, out }) => ({ name, view: view(out.passed) })));
  });

  it('window: matches older than the window are left out and counted the same way', async () => {
    const outs = await onEvery(async (b) => {
      const now = b.clock.now();
      await b.remember('win-a-old', [memory('win-a', 'Old invoice for the printer', { createdAt: now - 200 * DAY })]);
      await b.remember('win-a-new', [memory('win-a', 'New invoice for the scanner', { createdAt: now - DAY })]);
      await b.remember('win-a-pin', [
        memory('win-a', 'Pinned invoice policy', { pinned: true, createdAt: now - 300 * DAY }),
      ]);
      return { response: await recallOn(b)({ agentId: 'win-a', query: 'invoice', windowDays: 30 }) };
    });
    for (const { out } of outs) {
      expect(out.response.results.map((r) => r.id).sort()).toEqual(['win-a-new1', 'win-a-pin1']);
      expect(out.response.window.excluded).toBe(1);
      expect(out.response.warnings.some((w) => w.startsWith('window: 1 matching memory is older'))).toBe(true);
    }
    expectSameAsSqlite(views(outs));
  });

  it('semantic: the same exact top-k and cosines (sqlite-vec or scan, pgvector, or the scan without it)', async () => {
    const embedder = wordEmbedder();
    const outs = await onEvery(async (b) => {
      const texts = [
        'the cat sat on the warm mat',
        'a dog barked at the mail carrier',
        'cats and kittens sleep on mats',
        'the stock market fell sharply today',
        'kitten naps on a warm windowsill',
        'interest rates and the bond market',
      ];
      const vectors = await embedder.embed(texts);
      await b.remember(
        'sem-a',
        texts.map((t, i) =>
          memory('sem-a', t, { embedding: { model: embedder.model, vector: vectors[i] as Float32Array } }),
        ),
      );
      // Another agent's vectors, identical to the query: never a result, never a score.
      const [query] = await embedder.embed(['warm cat mat nap']);
      await b.remember('sem-b', [
        memory('sem-b', 'warm cat mat nap', { embedding: { model: embedder.model, vector: query as Float32Array } }),
      ]);
      const response = await recallOn(b, { embedder })({
        agentId: 'sem-a',
        query: 'warm cat mat nap',
        windowDays: null,
        explain: true,
      });
      return { response };
    });
    for (const { name, out } of outs) {
      expect(out.response.vectorCompleteness, name).toBe('exact');
      expect(out.response.vectorCoverage, name).toEqual({ embedded: 6, total: 6 });
      expect(
        out.response.results.every((r) => r.id.startsWith('sem-a')),
        name,
      ).toBe(true);
      expect(out.response.results[0]?.channels.semantic, name).toBeGreaterThan(0.5);
    }
    const layouts = outs.map(({ name, out }) => `${name}: ${out.response.vectorSearch?.layout}`);
    expect(layouts.find((l) => l.startsWith('postgres (PGlite'))).toMatch(/: exact$/);
    const server = layouts.find((l) => l.startsWith('postgres (server'));
    if (server?.includes('no pgvector')) expect(server).toMatch(/: scan$/);
    expectSameAsSqlite(views(outs), 5);
  });

  it('without pgvector beyond the scan window: recent-window, as on SQLite without sqlite-vec', async () => {
    const embedder = wordEmbedder();
    const config: MemoryConfig = { ...defaultConfig, recall: { ...defaultConfig.recall, vectorScanWindow: 2 } };
    const outs = await onEvery(async (b) => {
      const texts = ['red apples', 'green pears', 'yellow bananas'];
      const vectors = await embedder.embed(texts);
      await b.remember(
        'scan-a',
        texts.map((t, i) =>
          memory('scan-a', t, { embedding: { model: embedder.model, vector: vectors[i] as Float32Array } }),
        ),
      );
      return {
        response: await recallOn(b, { embedder, config })({ agentId: 'scan-a', query: 'red apples', windowDays: null }),
      };
    });
    for (const { name, out } of outs) {
      // A vector index (sqlite-vec, pgvector) searches every vector; the scans only the newest 2.
      if (['exact', 'approximate'].includes(out.response.vectorCompleteness)) continue;
      expect(out.response.vectorCompleteness, name).toBe('recent-window');
      expect(out.response.searchedWindow, name).toBe(2);
    }
  });

  it('after the response: access counts and telemetry written on every backend', async () => {
    const config: MemoryConfig = { ...defaultConfig, telemetry: { ...defaultConfig.telemetry, recallQa: true } };
    const outs = await onEvery(async (b) => {
      const created = await b.remember('after-a', [
        memory('after-a', 'Parking is behind the gym'),
        memory('after-a', 'Gym opens at six'),
      ]);
      const ids = created.map((c) => c.id as string);
      const scheduler = createManualScheduler(b.clock);
      const after = createAfterResponseWriter(b.store, scheduler, silentLogger);
      const recall = createRecall({ store: b.store, config, after });
      const response = (await recall({
        agentId: 'after-a',
        query: 'gym',
        windowDays: null,
      })) as RecallResponse<RecallResult>;
      await after.flush();
      const rows = await readRows(b.store, 'after-a', ids);
      const telemetry = await b.store.db.read(() => listRecallTelemetryProgram('after-a', 10));
      return { response, rows, telemetry, ids };
    });
    for (const { name, out } of outs) {
      expect(out.telemetry, name).toHaveLength(1);
      expect(out.telemetry[0], name).toMatchObject({ agentId: 'after-a', query: 'gym', resultCount: 2 });
      expect(out.rows, name).toEqual(out.ids.map((id) => ({ id, access_count: 1 })));
    }
    expectSameAsSqlite(views(outs));
  });

  it('notes in recall: asked for on an agent without notes, none come back, on every dialect', async () => {
    for (const b of open) {
      const attempt = recallOn(b)({ agentId: 'notes-a', query: 'anything', include: ['memories', 'notes'] });
      await expect(attempt).resolves.toMatchObject({ results: [] });
    }
  });
});

function entity(id: string, agentId: string, name: string, now: number): Array<readonly [string, ...unknown[]]> {
  return [
    [
      `INSERT INTO entities (id, agent_id, name, canonical_name, entity_type, mentions, status, pinned, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'project', 0, 'active', 0, ?, ?)`,
      id,
      agentId,
      name,
      name.toLowerCase(),
      now,
      now,
    ],
  ];
}

function claim(
  id: string,
  agentId: string,
  aspectId: string,
  entityId: string,
  content: string,
  memoryId: string,
  now: number,
): readonly [string, ...unknown[]] {
  return [
    `INSERT INTO entity_attributes (id, agent_id, aspect_id, entity_id, claim_key, kind, content, confidence, importance, status, source_memory_id, created_at)
     VALUES (?, ?, ?, ?, ?, 'attribute', ?, 1, 0.5, 'active', ?, ?)`,
    id,
    agentId,
    aspectId,
    entityId,
    id,
    content,
    memoryId,
    now,
  ];
}

async function readRows(store: PortableStore, agentId: string, ids: string[]) {
  return store.db.read(function* () {
    const out: Array<{ id: string; access_count: number }> = [];
    for (const id of ids) out.push({ id, access_count: (yield* findMemoryProgram(agentId, id))?.access_count ?? -1 });
    return out;
  });
}
