import { contentHash, normalizeForHash } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

const DAY = 86_400_000;

type Db = InstanceType<typeof Database>;
const count = (db: Db, sql: string, ...params: unknown[]): number =>
  (db.prepare(sql).get(...params) as { n: number }).n;

async function engineWithDb(config: Record<string, unknown> = {}) {
  const db = new Database(':memory:');
  const { engine, clock } = await createTestEngine({
    database: { database: db },
    embedder: createBagOfWordsEmbedder(),
    config,
  });
  return { engine, clock, db };
}

/** A decision and its vector inserted on the host's handle, by-passing the engine (as an importer might). */
async function insertElsewhere(
  db: Db,
  embedder: ReturnType<typeof createBagOfWordsEmbedder>,
  text: string,
  now: number,
): Promise<void> {
  const [vector] = await embedder.embed([text]);
  db.prepare(
    `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, importance, tags,
       linked_entities, embedding_model, created_at, updated_at)
     VALUES ('elsewhere', 'a', 'decision', ?, ?, ?, 0.5, '[]', '[]', ?, ?, ?)`,
  ).run(text, normalizeForHash(text), contentHash(text), embedder.model, now, now);
  db.prepare(
    `INSERT INTO embeddings (agent_id, source_type, source_id, content_hash, model, dimensions, vector, created_at)
     VALUES ('a', 'memory', 'elsewhere', ?, ?, ?, ?, ?)`,
  ).run(contentHash(text), embedder.model, embedder.dimensions, Buffer.from((vector as Float32Array).buffer), now);
}

describe('purge after the recover window', () => {
  it('removes forgotten and expired memories with everything derived, keeps tombstones and content-free history', async () => {
    const { engine, clock, db } = await engineWithDb();
    const forgotten = await engine.remember({
      agentId: 'a',
      content: 'Standup notes: the launch slipped to March after the vendor delay',
      linkedEntities: [{ type: 'contact', refId: '42', label: 'Dana' }],
    });
    const expired = await engine.remember({
      agentId: 'a',
      content: 'The parking code is 4411 until the lease ends',
      expiresAt: T0 + DAY,
    });
    const pinned = await engine.remember({
      agentId: 'a',
      content: 'Pinned rule that expires but is kept',
      pinned: true,
      expiresAt: T0 + DAY,
    });
    const live = await engine.remember({ agentId: 'a', content: 'Alice prefers green tea in the morning' });
    await engine.modify({
      agentId: 'a',
      id: forgotten.id,
      reason: 'typo',
      content: `${'Standup notes'}: the launch slipped to March after the vendor's delay`,
    });
    // A claim whose only evidence is the forgotten memory, and a head entry quoting it.
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'chat-1',
      turns: [{ role: 'user', content: 'Project Atlas is our billing rewrite.' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 'chat-1' });
    const entity = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Project Atlas' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Project Atlas is our billing rewrite' }],
        },
      ],
    });
    const aspect = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'create_aspect',
          payload: { entityId: entity.applied[0]?.targetId, name: 'schedule' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Project Atlas' }],
        },
      ],
    });
    const claim = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'add_claim',
          payload: { aspectId: aspect.applied[0]?.targetId, claimKey: 'launch', content: 'The launch is in March.' },
          evidence: [{ sourceRef: `memory:${forgotten.id}`, quote: 'the launch slipped to March' }],
        },
      ],
    });
    const claimId = claim.applied[0]?.targetId ?? '';
    expect(claimId).not.toBe('');
    db.prepare(
      `INSERT INTO memory_md_heads (agent_id, revision, content, content_hash, entries_json, pass_id, updated_at)
       VALUES ('a', 1, ?, 'h1', ?, NULL, 0)`,
    ).run(
      '# MEMORY\n\n- The launch slipped to March\n- Alice drinks green tea',
      JSON.stringify([
        {
          text: 'The launch slipped to March',
          evidence: [{ sourceRef: `memory:${forgotten.id}`, quote: 'the launch slipped to March' }],
        },
        { text: 'Alice drinks green tea', evidence: [{ sourceRef: `memory:${live.id}`, quote: 'green tea' }] },
      ]),
    );
    await engine.forget({ agentId: 'a', id: forgotten.id, reason: 'outdated' });

    clock.advance(29 * DAY);
    expect((await engine.maintenance.preview()).purge).toMatchObject({ forgotten: 0, expired: 0 });
    clock.advance(2 * DAY);
    expect((await engine.maintenance.preview()).purge).toMatchObject({ forgotten: 1, expired: 1 });
    expect((await engine.diagnostics()).maintenance.purgeDue).toBe(2);

    // The engine's own schedule: the check queues a maintenance job, runDue runs it.
    await engine.runDue();

    for (const id of [forgotten.id, expired.id]) {
      expect(count(db, 'SELECT count(*) AS n FROM memories WHERE id = ?', id)).toBe(0);
      expect(count(db, "SELECT count(*) AS n FROM embeddings WHERE source_type = 'memory' AND source_id = ?", id)).toBe(
        0,
      );
      expect(count(db, 'SELECT count(*) AS n FROM memory_links WHERE memory_id = ?', id)).toBe(0);
      expect(count(db, 'SELECT count(*) AS n FROM memory_tombstones WHERE memory_id = ?', id)).toBe(1);
      const history = await engine.history({ agentId: 'a', id }).catch(() => undefined);
      expect(history).toBeUndefined();
      const rows = db
        .prepare('SELECT event, old_content, new_content, changed_by, metadata FROM memory_history WHERE memory_id = ?')
        .all(id) as Array<{ old_content: string | null; new_content: string | null; metadata: string }>;
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.old_content).toBeNull();
        expect(row.new_content).toBeNull();
        expect(JSON.parse(row.metadata)).toMatchObject({ purged: true });
      }
    }
    expect(count(db, "SELECT count(*) AS n FROM text_postings WHERE term IN ('park', 'vendor')")).toBe(0);
    expect(count(db, 'SELECT count(*) AS n FROM memories_cold')).toBe(0);
    // The vector index holds exactly the live memories' vectors.
    expect(count(db, "SELECT sum(vectors) AS n FROM vector_partitions WHERE agent_id = 'a'")).toBe(
      count(db, "SELECT count(*) AS n FROM embeddings WHERE agent_id = 'a'"),
    );
    expect(count(db, "SELECT count(*) AS n FROM embeddings WHERE agent_id = 'a'")).toBe(2);
    // Pinned memories never expire into a purge; live ones stay.
    expect(await engine.getMemory({ agentId: 'a', id: pinned.id })).toBeDefined();
    expect(await engine.getMemory({ agentId: 'a', id: live.id })).toBeDefined();
    // The claim lost its only evidence: marked for review, its quote gone.
    expect(
      count(
        db,
        "SELECT count(*) AS n FROM dreaming_attention WHERE kind = 'review_due' AND subject_ref = ? AND resolved_at IS NULL",
        `claim:${claimId}`,
      ),
    ).toBe(1);
    const evidence = db.prepare('SELECT evidence_json FROM entity_attributes WHERE id = ?').get(claimId) as {
      evidence_json: string;
    };
    expect(evidence.evidence_json).not.toContain('slipped');
    // The head no longer shows the entry quoting it.
    const head = await engine.memoryHead({ agentId: 'a' });
    expect(head?.content).not.toContain('March');
    expect(head?.content).toContain('green tea');
    expect(head?.revision).toBe(2);
    const diagnostics = await engine.diagnostics();
    expect(diagnostics.maintenance.purgeDue).toBe(0);
    expect(diagnostics.maintenance.tasks.find((t) => t.task === 'purge:run')?.lastReport).toMatchObject({
      done: true,
      purged: { memories: 2 },
    });
    expect((await engine.health({ agentId: 'a' })).purged).toBe(2);
    await engine.close();
  });

  it('purges in bounded batches and resumes: each batch commits on its own', async () => {
    const { engine, clock, db } = await engineWithDb({ retention: { purgeBatchSize: 3 } });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await engine.remember({ agentId: 'a', content: `note number ${i}` })).id);
    for (const id of ids) await engine.forget({ agentId: 'a', id, reason: 'cleanup' });
    clock.advance(31 * DAY);
    // The run's budget and each batch's 10 ms slice read the monotonic clock: on a loaded machine a
    // preempted batch stopped early (fewer than 3 purged, more batches) or the run did none. Here
    // that clock moves 1 ms per reading and nothing else moves it.
    let monotonic = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => ++monotonic);
    try {
      // A budget of 1 ms stops after the first batch: three purged, the rest wait for the next run.
      const [first] = await engine.maintenance.run({ task: 'purge', budgetMs: 1 });
      expect(first).toMatchObject({ task: 'purge', batches: 1, done: false, purged: { memories: 3 } });
      expect(count(db, 'SELECT count(*) AS n FROM memories')).toBe(7);
      const [rest] = await engine.maintenance.run({ task: 'purge' });
      expect(rest).toMatchObject({ done: true, purged: { memories: 7 } });
      expect(rest?.batches).toBe(4);
    } finally {
      now.mockRestore();
    }
    expect(count(db, 'SELECT count(*) AS n FROM memory_tombstones')).toBe(10);
    await engine.close();
  });

  it("lets conflict detection find a memory another path inserted at a purged top row's seq", async () => {
    const db = new Database(':memory:');
    const embedder = createBagOfWordsEmbedder(256);
    const { engine, clock } = await createTestEngine({
      database: { database: db },
      embedder,
      config: { remember: { conflict: { threshold: 0.5 } } },
    });
    await engine.remember({ agentId: 'a', content: 'The weekly standup is at 9:30 on Monday', type: 'decision' });
    const gone = await engine.remember({
      agentId: 'a',
      content: 'Payroll runs at 8:00 on the last business day',
      type: 'decision',
    });
    // An update of it (in place, no new row) has the key index read the scope through its seq.
    const restated = await engine.remember({
      agentId: 'a',
      content: 'Payroll runs at 9:00 on the last business day',
      type: 'decision',
    });
    expect(restated).toMatchObject({ id: gone.id, updated: true });
    const seqOf = (id: string) => (db.prepare('SELECT seq FROM memories WHERE id = ?').get(id) as { seq: number }).seq;
    const goneSeq = seqOf(gone.id);
    await engine.forget({ agentId: 'a', id: gone.id, reason: 'cleanup' });
    clock.advance(31 * DAY);
    const [purge] = await engine.maintenance.run({ task: 'purge' });
    expect(purge).toMatchObject({ purged: { memories: 1 } });
    // Another path on the same connection (the host's handle, as an importer might) inserts a
    // decision with its vector; it takes the purged row's seq, which the key index had read to.
    await insertElsewhere(db, embedder, 'Invoices go out at 8:00 on the first business day', clock.now());
    expect(seqOf('elsewhere')).toBe(goneSeq);
    const update = await engine.remember({
      agentId: 'a',
      content: 'Invoices go out at 9:00 on the first business day',
      type: 'decision',
    });
    expect(update).toMatchObject({ id: 'elsewhere', updated: true });
    await engine.close();
  });

  it("lets conflict detection find a memory another path inserted at an erased scope's seqs", async () => {
    const db = new Database(':memory:');
    const embedder = createBagOfWordsEmbedder(256);
    const { engine, clock } = await createTestEngine({
      database: { database: db },
      embedder,
      config: { remember: { conflict: { threshold: 0.5 } } },
    });
    const first = await engine.remember({
      agentId: 'a',
      content: 'Payroll runs at 8:00 on the last business day',
      type: 'decision',
    });
    // An update in place has the key index read the scope through the row's seq.
    const restated = await engine.remember({
      agentId: 'a',
      content: 'Payroll runs at 9:00 on the last business day',
      type: 'decision',
    });
    expect(restated).toMatchObject({ id: first.id, updated: true });
    const seqOf = (id: string) => (db.prepare('SELECT seq FROM memories WHERE id = ?').get(id) as { seq: number }).seq;
    const firstSeq = seqOf(first.id);
    await engine.erase({ agentId: 'a' });
    await insertElsewhere(db, embedder, 'Invoices go out at 8:00 on the first business day', clock.now());
    expect(seqOf('elsewhere')).toBeLessThanOrEqual(firstSeq);
    const update = await engine.remember({
      agentId: 'a',
      content: 'Invoices go out at 9:00 on the first business day',
      type: 'decision',
    });
    expect(update).toMatchObject({ id: 'elsewhere', updated: true });
    await engine.close();
  });

  it('does nothing with purge turned off, and a dry run changes nothing', async () => {
    const { engine, clock, db } = await engineWithDb({ retention: { purgeEnabled: false } });
    const { id } = await engine.remember({ agentId: 'a', content: 'kept forever' });
    await engine.forget({ agentId: 'a', id, reason: 'x' });
    clock.advance(400 * DAY);
    expect((await engine.maintenance.preview()).purge).toMatchObject({ enabled: false, forgotten: 1 });
    await engine.runDue();
    expect(count(db, 'SELECT count(*) AS n FROM memories')).toBe(1);
    await engine.close();
  });
});

describe('reaping', () => {
  it('expires stale low-importance memories (never pinned ones), records it, and the purge removes them later', async () => {
    const { engine, clock, db } = await engineWithDb();
    const low = await engine.remember({ agentId: 'a', content: 'low importance trivia', importance: 0.3 });
    const cut = await engine.remember({ agentId: 'a', content: 'exactly at the cut', importance: 0.4 });
    const high = await engine.remember({ agentId: 'a', content: 'important decision', importance: 0.8 });
    const pinned = await engine.remember({ agentId: 'a', content: 'pinned trivia', importance: 0.1, pinned: true });
    clock.advance(60 * DAY);
    const recent = await engine.remember({ agentId: 'a', content: 'recent trivia', importance: 0.1 });
    clock.advance(31 * DAY);
    expect((await engine.maintenance.preview()).reap.candidates).toBe(2);
    const [report] = await engine.maintenance.run({ task: 'reap' });
    expect(report).toMatchObject({ task: 'reap', reaped: 2, done: true });
    const expires = (id: string) =>
      (db.prepare('SELECT expires_at AS e FROM memories WHERE id = ?').get(id) as { e: number | null }).e;
    expect(expires(low.id)).toBe(clock.now());
    expect(expires(cut.id)).toBe(clock.now());
    for (const id of [high.id, pinned.id, recent.id]) expect(expires(id)).toBeNull();
    const history = await engine.history({ agentId: 'a', id: low.id });
    expect(history.at(-1)).toMatchObject({ event: 'updated', actorType: 'engine', metadata: { reaped: true } });
    // Expired memories are no longer recalled; after the recover window they are purged.
    expect((await engine.recall({ agentId: 'a', query: 'trivia' })).results.map((r) => r.id)).not.toContain(low.id);
    expect((await engine.health({ agentId: 'a' })).last30Days.reaped).toBe(2);
    clock.advance(31 * DAY);
    await engine.maintenance.run({ task: 'purge' });
    expect(count(db, 'SELECT count(*) AS n FROM memory_tombstones WHERE reason = ?', 'expired')).toBe(2);
    await engine.close();
  });

  it('queues reaping on the schedule once per interval', async () => {
    const { engine, clock } = await engineWithDb();
    await engine.remember({ agentId: 'a', content: 'old trivia', importance: 0.2 });
    // The first check starts the clock; a run is due a reap interval later.
    await engine.runDue();
    expect((await engine.diagnostics()).maintenance.tasks.find((t) => t.task === 'reap:run')?.lastReport).toEqual({});
    clock.advance(91 * DAY);
    await engine.runDue();
    const reap = (await engine.diagnostics()).maintenance.tasks.find((t) => t.task === 'reap:run');
    expect(reap).toMatchObject({ lastRunAt: clock.now(), lastReport: { reaped: 1 } });
    await engine.close();
  });

  it('archives orphan entities and prunes old cold copies and archived jobs (the archive task)', async () => {
    const { engine, clock, db } = await engineWithDb();
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'chat',
      turns: [{ role: 'user', content: 'Project Atlas and Project Borealis kicked off.' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 'chat' });
    const made = await engine.dreaming.apply({
      agentId: 'a',
      operations: ['Project Atlas', 'Project Borealis'].map((name) => ({
        operation: 'create_entity',
        payload: { name },
        evidence: [{ sourceRef: 'transcript:chat', quote: name }],
      })),
    });
    const [atlas, borealis] = made.applied.map((a) => a.targetId);
    // Atlas is mentioned by a memory (inline linking); Borealis by nothing.
    const { id } = await engine.remember({ agentId: 'a', content: 'Project Atlas ships in March' });
    await engine.modify({ agentId: 'a', id, reason: 'moved', content: 'Project Atlas ships in April' });
    engine.jobs.registerHandler({ jobTypes: ['tick'], handler: async () => 'ok' });
    await engine.jobs.enqueue({ jobType: 'tick' });
    await engine.runDue();
    clock.advance(15 * DAY);
    await engine.repair.prune({ apply: true });
    const rows = (table: string) => count(db, `SELECT count(*) AS n FROM ${table}`);
    expect(rows('memories_cold')).toBe(1);
    expect(rows('memory_jobs_archive')).toBeGreaterThan(0);

    clock.advance(20 * DAY);
    const [early] = await engine.maintenance.run({ task: 'archive' });
    expect(early).toMatchObject({ done: true, archived: { entities: 1, coldCopies: 0, jobArchive: 0 } });
    const status = (entityId: string | undefined) =>
      (db.prepare('SELECT status FROM entities WHERE id = ?').get(entityId) as { status: string }).status;
    expect(status(borealis)).toBe('archived');
    expect(status(atlas)).toBe('active');

    clock.advance(180 * DAY);
    const [late] = await engine.maintenance.run({ task: 'archive' });
    expect(late?.archived).toMatchObject({ coldCopies: 1, jobArchive: expect.any(Number) });
    expect(rows('memories_cold')).toBe(0);
    expect(rows('memory_jobs_archive')).toBe(0);
    await engine.close();
  });
});
