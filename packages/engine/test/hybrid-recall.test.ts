import { createManualClock, createManualScheduler, type EmbeddingProvider } from '@memory/core';
import { createHashingEmbedder, createOfflineEmbedder } from '@memory/providers';
import { insertAspect, insertClaim, insertDependency, insertEntity, insertHints } from '@memory/store';
import { SqlExecutor } from '@memory/store/sql';
import { insertMention } from '@memory/store/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { formatRecall } from '../src/index.js';
import { createTestEngine, T0 } from './helpers.js';

const DAY = 86_400_000;
const offline = createOfflineEmbedder();

async function engineOn(options: { embedder?: EmbeddingProvider; config?: Record<string, unknown> } = {}) {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.config ? { config: options.config } : {}),
  });
  return { engine, db, clock, scheduler, sql: new SqlExecutor(db) };
}

describe('semantic channel', () => {
  it('finds a paraphrase that shares no word with the query, through vec0 inside the agent partition', async () => {
    const { engine } = await engineOn({ embedder: offline });
    const { id } = await engine.remember({ agentId: 'a', content: 'Alice loves green tea and herbal infusions' });
    await engine.remember({ agentId: 'a', content: 'The deployment pipeline runs every night' });
    await engine.remember({ agentId: 'b', content: 'Bob loves green tea and herbal infusions too' });
    const response = await engine.recall({ agentId: 'a', query: 'which beverage does she enjoy?', explain: true });
    expect(response.vectorCompleteness).toBe('exact');
    expect(response.vectorSearch).toMatchObject({ layout: 'exact', vectors: 2, searched: 2, pool: 50 });
    expect(response.results[0]?.id).toBe(id);
    expect(response.results[0]?.channels.lexical).toBeUndefined();
    expect(response.results[0]?.channels.semantic).toBeGreaterThan(0.3);
    expect(response.results.every((r) => !r.content.startsWith('Bob'))).toBe(true);
  });

  it('falls back to a bounded scan without sqlite-vec and says how much it searched', async () => {
    const { engine } = await engineOn({
      embedder: createHashingEmbedder({ dimensions: 64 }),
      config: { store: { vectorExtension: 'off' }, recall: { vectorScanWindow: 3 } },
    });
    expect(engine.vector.available).toBe(false);
    for (const word of ['apple', 'banana', 'cherry'])
      await engine.remember({ agentId: 'a', content: `${word} orchard notes` });
    let response = await engine.recall({ agentId: 'a', query: 'orchard' });
    expect(response.vectorCompleteness).toBe('exact');
    expect(response.searchedWindow).toBeUndefined();
    await engine.remember({ agentId: 'a', content: 'damson orchard notes' });
    await engine.remember({ agentId: 'a', content: 'elderberry orchard notes' });
    response = await engine.recall({ agentId: 'a', query: 'orchard' });
    expect(response).toMatchObject({ vectorCompleteness: 'recent-window', searchedWindow: 3 });
    // The lexical channel is complete regardless.
    expect(response.results).toHaveLength(5);
  });

  it('keeps answering from the other channels when the embedder fails at query time', async () => {
    let fail = false;
    const flaky: EmbeddingProvider = {
      model: 'flaky',
      dimensions: 8,
      async embed(texts) {
        if (fail) throw new Error('embedding server down');
        return texts.map(() => Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0]));
      },
    };
    const { engine } = await engineOn({ embedder: flaky });
    const { id } = await engine.remember({ agentId: 'a', content: 'the staging database password rotates monthly' });
    fail = true;
    const response = await engine.recall({ agentId: 'a', query: 'staging password' });
    expect(response.results.map((r) => r.id)).toEqual([id]);
    expect(response.vectorCompleteness).toBe('none');
    expect(response.warnings.join(' ')).toMatch(/embedding server down/);
  });

  it('fuses: a memory found by both channels outranks one found by meaning alone', async () => {
    const { engine } = await engineOn({ embedder: offline });
    const both = await engine.remember({ agentId: 'a', content: 'Dana drinks oolong tea every afternoon' });
    const meaningOnly = await engine.remember({ agentId: 'a', content: 'Someone sips green matcha after lunch' });
    const { results } = await engine.recall({ agentId: 'a', query: 'Dana tea' });
    expect(results[0]?.id).toBe(both.id);
    const first = results[0];
    expect(first?.channels.lexical).toBe(1);
    expect(first?.channels.semantic).toBeGreaterThan(0);
    const second = results.find((r) => r.id === meaningOnly.id);
    expect(second?.channels.lexical).toBeUndefined();
    expect(second?.score).toBeLessThan(first?.score ?? 0);
  });
});

describe('hints channel', () => {
  it('finds a memory through a prospective hint, capped below direct evidence', async () => {
    const { engine, sql } = await engineOn();
    const { id } = await engine.remember({ agentId: 'a', content: 'Standup moved to 9:30 starting next sprint' });
    const direct = await engine.remember({ agentId: 'a', content: 'Retro meeting notes for sprint 14' });
    insertHints(sql, 'a', id, ['What time is the daily meeting?'], T0);
    // Another agent's hint with the same words must not leak.
    const other = await engine.remember({ agentId: 'b', content: 'b secret' });
    insertHints(sql, 'b', other.id, ['What time is the daily meeting?'], T0);
    const { results, warnings } = await engine.recall({ agentId: 'a', query: 'daily meeting time' });
    expect(warnings).toEqual([]);
    const viaHint = results.find((r) => r.id === id);
    expect(viaHint?.channels.hint).toBe(1);
    expect(viaHint?.score).toBeLessThanOrEqual(0.75 + 0.1); // cap, plus at most the recency boost
    expect(results.some((r) => r.id === other.id)).toBe(false);
    const { results: meeting } = await engine.recall({ agentId: 'a', query: 'meeting sprint' });
    expect(meeting[0]?.id).toBe(direct.id);
  });
});

function seedGraph(sql: SqlExecutor, memories: { launch: string; budget: string; mentionsAtlas: string }) {
  const now = T0;
  insertEntity(sql, {
    id: 'e-atlas',
    agentId: 'a',
    name: 'Project Atlas',
    entityType: 'project',
    aliases: ['Atlas'],
    now,
  });
  insertEntity(sql, { id: 'e-finance', agentId: 'a', name: 'Finance Team', entityType: 'team', now });
  insertAspect(sql, { id: 'asp-1', agentId: 'a', entityId: 'e-atlas', name: 'schedule', now });
  insertAspect(sql, { id: 'asp-2', agentId: 'a', entityId: 'e-finance', name: 'budget', now });
  insertClaim(sql, {
    id: 'c-1',
    agentId: 'a',
    entityId: 'e-atlas',
    aspectId: 'asp-1',
    claimKey: 'launch',
    content: 'launch is in March',
    sourceMemoryId: memories.launch,
    now,
  });
  insertClaim(sql, {
    id: 'c-2',
    agentId: 'a',
    entityId: 'e-finance',
    aspectId: 'asp-2',
    claimKey: 'cap',
    content: 'spend capped',
    sourceMemoryId: memories.budget,
    now,
  });
  insertDependency(sql, {
    id: 'd-1',
    agentId: 'a',
    sourceEntityId: 'e-atlas',
    targetEntityId: 'e-finance',
    type: 'depends_on',
    now,
  });
  insertMention(sql, {
    memoryId: memories.mentionsAtlas,
    entityId: 'e-atlas',
    agentId: 'a',
    mentionText: 'Atlas',
    confidence: 1,
    now,
  });
}

describe('traversal channel', () => {
  async function graphEngine(config: Record<string, unknown> = {}) {
    const setup = await engineOn({ config });
    const launch = await setup.engine.remember({
      agentId: 'a',
      content: 'The launch slipped to March after the vendor delay',
    });
    const budget = await setup.engine.remember({ agentId: 'a', content: 'Spending is capped at 40k this quarter' });
    const mentionsAtlas = await setup.engine.remember({
      agentId: 'a',
      content: 'Atlas standup notes: nothing blocking',
    });
    seedGraph(setup.sql, { launch: launch.id, budget: budget.id, mentionsAtlas: mentionsAtlas.id });
    return { ...setup, ids: { launch: launch.id, budget: budget.id, mentionsAtlas: mentionsAtlas.id } };
  }

  it('walks focal entity → claims → memories, one dependency hop by default, in the linked tier, capped when unanchored', async () => {
    const { engine, ids } = await graphEngine();
    const response = await engine.recall({ agentId: 'a', query: 'what is going on with Atlas?', explain: true });
    const byId = new Map(response.results.map((r) => [r.id, r]));
    const launch = byId.get(ids.launch as never);
    expect(launch?.tier).toBe('linked');
    expect(launch?.explanation?.path).toEqual({ entityId: 'e-atlas', hops: 0, claimId: 'c-1' });
    expect(launch?.explanation?.anchored).toBe(false);
    expect(launch?.explanation?.fused).toBeLessThanOrEqual(0.35);
    const budget = byId.get(ids.budget as never);
    expect(budget?.explanation?.path).toMatchObject({ entityId: 'e-finance', hops: 1 });
    // Reached by mention and by text: anchored, so not capped.
    expect(byId.get(ids.mentionsAtlas as never)?.explanation?.anchored).toBe(true);
  });

  it('honours the configured hop count', async () => {
    const { engine, ids } = await graphEngine({ traversal: { maxHops: 0 } });
    const { results } = await engine.recall({ agentId: 'a', query: 'Project Atlas status' });
    expect(results.some((r) => r.id === ids.budget)).toBe(false);
    expect(results.some((r) => r.id === ids.launch)).toBe(true);
  });

  it('with traversal off, boosts results mentioning a focal entity instead (legacy graph boost)', async () => {
    const { engine, ids } = await graphEngine({ traversal: { enabled: false } });
    const { results } = await engine.recall({ agentId: 'a', query: 'Atlas notes', explain: true });
    expect(results.some((r) => r.id === ids.launch)).toBe(false);
    const mention = results.find((r) => r.id === ids.mentionsAtlas);
    expect(mention?.explanation?.adjustments.graphBoost).toBe(0.1);
    expect(mention?.entities).toEqual([{ id: 'e-atlas', name: 'Project Atlas' }]);
  });

  it('never resolves another agent’s entities', async () => {
    const { engine } = await graphEngine();
    await engine.remember({ agentId: 'b', content: 'b has nothing about that' });
    const { results } = await engine.recall({ agentId: 'b', query: 'Atlas launch' });
    expect(results).toEqual([]);
  });
});

describe('linked channel, tiers, explain, drill-down, expand', () => {
  it('returns memories linked to host references in the linked tier, whatever their text', async () => {
    const { engine } = await engineOn();
    const linked = await engine.remember({
      agentId: 'a',
      content: 'Prefers calls after 3pm',
      linkedEntities: [{ type: 'contact', refId: '42', label: 'Dana' }],
    });
    const text = await engine.remember({ agentId: 'a', content: 'Invoice template for Dana' });
    const response = await engine.recall({
      agentId: 'a',
      query: 'invoice',
      linkedEntities: [{ type: 'contact', refId: '42' }],
      explain: true,
    });
    const first = response.results.find((r) => r.id === linked.id);
    expect(first).toMatchObject({ tier: 'linked', channels: { linked: 1 } });
    expect(first?.score).toBeGreaterThanOrEqual(0.5);
    expect(first?.explanation?.linkedBy).toEqual([{ type: 'contact', refId: '42' }]);
    expect(response.results.find((r) => r.id === text.id)?.tier).toBe('related');
    const rendered = formatRecall(response);
    expect(rendered.indexOf('LINKED CONTEXT')).toBeLessThan(rendered.indexOf('POSSIBLY RELATED'));
    expect(rendered).toContain('Prefers calls after 3pm');
    // Without explain there is no explanation.
    expect((await engine.recall({ agentId: 'a', query: 'invoice' })).results[0]?.explanation).toBeUndefined();
  });

  it('resolves host references the query names by their label (any case or spacing), only in scope', async () => {
    const { engine } = await engineOn();
    const linked = await engine.remember({
      agentId: 'a',
      content: 'Prefers calls after 3pm',
      linkedEntities: [{ type: 'contact', refId: '42', label: 'Dana Whitfield' }],
    });
    const other = await engine.remember({
      agentId: 'b',
      content: 'Prefers email',
      linkedEntities: [{ type: 'contact', refId: '42', label: 'Dana Whitfield' }],
    });
    const response = await engine.recall({
      agentId: 'a',
      query: 'what do we know about dana   WHITFIELD?',
      explain: true,
    });
    expect(response.results.map((r) => r.id)).toEqual([linked.id]);
    expect(response.results[0]).toMatchObject({
      tier: 'linked',
      explanation: { linkedBy: [{ type: 'contact', refId: '42' }] },
    });
    expect(response.results.some((r) => r.id === other.id)).toBe(false);
  });

  it('expands the sessions behind results into bounded excerpts, and suggests it otherwise', async () => {
    const { engine } = await engineOn();
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'trip',
      turns: [
        { role: 'user', content: 'we are planning the Lisbon offsite' },
        { role: 'assistant', content: 'noted. Budget?' },
        { role: 'user', content: 'keep it under 5k and book the riverside hotel' },
      ],
    });
    await engine.transcripts.append({
      agentId: 'b',
      sessionKey: 'trip',
      turns: [{ role: 'user', content: 'b private Lisbon turn' }],
    });
    const { id } = await engine.remember({
      agentId: 'a',
      content: 'Lisbon offsite budget is 5k',
      source: { type: 'transcript', id: 'trip' },
    });
    const plain = await engine.recall({ agentId: 'a', query: 'Lisbon budget' });
    expect(plain.drillDown).toContainEqual(expect.objectContaining({ kind: 'expand_session', sessionKey: 'trip' }));
    const expanded = await engine.recall({ agentId: 'a', query: 'Lisbon budget', expand: true });
    expect(expanded.expansions).toEqual([expect.objectContaining({ sessionKey: 'trip', memoryIds: [id] })]);
    const excerpt = expanded.expansions?.[0]?.excerpt ?? '';
    expect(excerpt).toContain('user: keep it under 5k and book the riverside hotel');
    expect(excerpt).not.toContain('b private');
    expect(expanded.drillDown.some((d) => d.kind === 'expand_session')).toBe(false);
  });

  it('suggests a narrower query for broad OR queries, and the entities results share', async () => {
    const { engine, sql } = await engineOn();
    const m = await engine.remember({ agentId: 'a', content: 'Atlas launch checklist reviewed' });
    insertEntity(sql, { id: 'e1', agentId: 'a', name: 'Atlas', now: T0 });
    insertMention(sql, { memoryId: m.id, entityId: 'e1', agentId: 'a', mentionText: 'Atlas', confidence: 1, now: T0 });
    const { drillDown } = await engine.recall({
      agentId: 'a',
      query: 'launch checklist zebra quantum giraffe',
      windowDays: null,
    });
    expect(drillDown).toContainEqual({ kind: 'narrower_query', query: 'launch checklist', reason: expect.any(String) });
    expect(drillDown).toContainEqual(expect.objectContaining({ kind: 'open_entity', entityId: 'e1', name: 'Atlas' }));
  });
});

describe('filters and the search window', () => {
  it('applies who, pinned and importance filters', async () => {
    const { engine } = await engineOn();
    const dana = await engine.remember({
      agentId: 'a',
      content: 'report format: bullet list',
      who: 'dana',
      importance: 0.9,
    });
    const eli = await engine.remember({
      agentId: 'a',
      content: 'report format: prose',
      who: 'eli',
      importance: 0.2,
      pinned: true,
    });
    const ids = async (input: Record<string, unknown>) =>
      (await engine.recall({ agentId: 'a', query: 'report format', ...input })).results.map((r) => r.id);
    expect(await ids({ who: 'dana' })).toEqual([dana.id]);
    expect(await ids({ pinned: true })).toEqual([eli.id]);
    expect(await ids({ importanceMin: 0.5 })).toEqual([dana.id]);
  });

  it('searches 90 days by default, 7 with recentOnly, everything with windowDays: null; pinned memories are always in the window', async () => {
    const { engine, clock } = await engineOn();
    const old = await engine.remember({ agentId: 'a', content: 'garden plan: tomatoes', createdAt: T0 - 200 * DAY });
    const oldPinned = await engine.remember({
      agentId: 'a',
      content: 'garden rule: no pesticides',
      createdAt: T0 - 400 * DAY,
      pinned: true,
    });
    const month = await engine.remember({ agentId: 'a', content: 'garden plan: basil', createdAt: T0 - 30 * DAY });
    const today = await engine.remember({ agentId: 'a', content: 'garden plan: water daily' });
    const ids = async (input: Record<string, unknown>) =>
      (await engine.recall({ agentId: 'a', query: 'garden', ...input })).results.map((r) => r.id).sort();
    expect(await ids({})).toEqual([oldPinned.id, month.id, today.id].sort());
    expect(await ids({ recentOnly: true })).toEqual([oldPinned.id, today.id].sort());
    expect(await ids({ windowDays: null })).toEqual([old.id, oldPinned.id, month.id, today.id].sort());
    const response = await engine.recall({ agentId: 'a', query: 'garden' });
    expect(response.window.since).toBe(clock.now() - 90 * DAY);
    await expect(engine.recall({ agentId: 'a', query: 'garden', windowDays: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('after the response', () => {
  it('counts accesses in one batched write on the next scheduler turn, and on close', async () => {
    const { engine, db, scheduler } = await engineOn();
    const { id } = await engine.remember({ agentId: 'a', content: 'coffee machine descaling every friday' });
    const count = () =>
      db.prepare('SELECT access_count AS n, last_accessed AS at FROM memories WHERE id = ?').get(id) as {
        n: number;
        at: number | null;
      };
    await engine.recall({ agentId: 'a', query: 'coffee' });
    await engine.recall({ agentId: 'a', query: 'descaling' });
    expect(count().n).toBe(0); // not on the response path
    await scheduler.runDue();
    expect(count()).toEqual({ n: 2, at: T0 });
    await engine.recall({ agentId: 'a', query: 'coffee' });
    await engine.close();
    expect(count().n).toBe(3);
  });

  it('records telemetry only when enabled, per agent, and purges it', async () => {
    const { engine, scheduler } = await engineOn({ config: { telemetry: { recallQa: true } } });
    await engine.remember({ agentId: 'a', content: 'alpha note' });
    await engine.recall({ agentId: 'a', query: 'alpha' });
    await engine.recall({ agentId: 'b', query: 'beta' });
    await scheduler.runDue();
    const rows = await engine.telemetry.list({ agentId: 'a' });
    expect(rows).toEqual([
      expect.objectContaining({ agentId: 'a', query: 'alpha', resultCount: 1, vectorCompleteness: 'none' }),
    ]);
    expect(await engine.telemetry.purge({ agentId: 'a' })).toBe(1);
    expect(await engine.telemetry.list({ agentId: 'a' })).toEqual([]);
    expect(await engine.telemetry.list({ agentId: 'b' })).toHaveLength(1);
    await expect(engine.telemetry.list({ agentId: 'b', limit: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.telemetry.purge({ agentId: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });

    const off = await engineOn();
    await off.engine.recall({ agentId: 'a', query: 'alpha' });
    await off.scheduler.runDue();
    expect(await off.engine.telemetry.list({ agentId: 'a' })).toEqual([]);
  });
});

describe('a search window never hides silently', () => {
  it('says how many matches it left out, warns, and offers to widen; windowDays: null finds them', async () => {
    const { engine } = await engineOn();
    // A backfill: every memory written with a past createdAt.
    for (const day of [200, 300, 400])
      await engine.remember({ agentId: 'a', content: `garden plan ${day}: tomatoes`, createdAt: T0 - day * DAY });
    await engine.remember({ agentId: 'a', content: 'kitchen plan: new shelves', createdAt: T0 - 500 * DAY });
    const hidden = await engine.recall({ agentId: 'a', query: 'garden tomatoes' });
    expect(hidden.results).toEqual([]);
    expect(hidden.window).toMatchObject({ since: T0 - 90 * DAY, days: 90, now: T0, excluded: 3 });
    expect(hidden.warnings.some((w) => w.startsWith('window: 3 matching memories are older than the 90-day'))).toBe(
      true,
    );
    expect(hidden.drillDown[0]).toMatchObject({ kind: 'widen_window', windowDays: null, excluded: 3 });
    expect(formatRecall(hidden)).toContain('3 older matching memories outside the window');

    const all = await engine.recall({ agentId: 'a', query: 'garden tomatoes', windowDays: null });
    expect(all.results).toHaveLength(3);
    expect(all.window).toMatchObject({ since: null, days: null, excluded: 0 });
    expect(all.warnings).toEqual([]);
    expect(all.drillDown.some((d) => d.kind === 'widen_window')).toBe(false);
  });

  it('answers as of a query time: the window ends at now, and later memories are left out', async () => {
    const { engine } = await engineOn();
    await engine.remember({ agentId: 'a', content: 'garden plan: tomatoes', createdAt: T0 - 300 * DAY });
    await engine.remember({ agentId: 'a', content: 'garden plan: basil', createdAt: T0 - 250 * DAY });
    await engine.remember({ agentId: 'a', content: 'garden plan: peppers', createdAt: T0 - 10 * DAY });
    const asOf = await engine.recall({ agentId: 'a', query: 'garden plan', now: T0 - 240 * DAY });
    expect(asOf.results.map((r) => r.content).sort()).toEqual(['garden plan: basil', 'garden plan: tomatoes']);
    expect(asOf.window).toMatchObject({ now: T0 - 240 * DAY, since: T0 - 330 * DAY, excluded: 0 });
    const narrow = await engine.recall({ agentId: 'a', query: 'garden plan', now: T0 - 240 * DAY, windowDays: 30 });
    expect(narrow.results.map((r) => r.content)).toEqual(['garden plan: basil']);
    expect(narrow.window.excluded).toBe(1);
    // A window that hid nothing says 0 and adds no warning.
    const today = await engine.recall({ agentId: 'a', query: 'peppers' });
    expect(today.window.excluded).toBe(0);
    expect(today.warnings).toEqual([]);
  });

  it('counts only the agent’s own matches', async () => {
    const { engine } = await engineOn();
    await engine.remember({ agentId: 'b', content: 'garden plan: tomatoes', createdAt: T0 - 300 * DAY });
    const response = await engine.recall({ agentId: 'a', query: 'garden tomatoes' });
    expect(response.window.excluded).toBe(0);
    expect(response.warnings).toEqual([]);
  });
});
