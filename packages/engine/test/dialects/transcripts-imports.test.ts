import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler, isMemoryError } from '@memory/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { record } from '../import-fixtures.js';
import { engineBackends } from '../support/backends.js';

// Transcripts and imports through the engine, on SQLite, PGlite and the real server: capture,
// completion (explicit and by the idle sweep), search, and an import run by the engine's own
// workers, paused, resumed and removed.

const T0 = Date.UTC(2026, 0, 1);
const backends = await engineBackends();
const directory = realpathSync(mkdtempSync(join(tmpdir(), 'engine-dialect-import-')));
let files = 0;
const exportFile = (records: number[]): string => {
  const file = join(directory, `export-${++files}.jsonl`);
  writeFileSync(file, `${records.map((n) => JSON.stringify(record(n))).join('\n')}\n`);
  return file;
};

describe.each(backends)('transcripts and imports on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  it.skipIf(backend.skip)('captures, completes (also when idle), lists and searches sessions per agent', async () => {
    const clock = createManualClock(T0);
    const scheduler = createManualScheduler(clock);
    const engine = await backend.open({
      clock,
      scheduler,
      config: { transcripts: { idleCompleteMs: 3_600_000, sweepIntervalMs: 600_000 } },
    });
    const turns: Array<{ role: 'user' | 'tool' | 'assistant'; content: string }> = [
      { role: 'user', content: 'Alice likes green tea' },
      { role: 'tool', content: '{"ok":true}' },
      { role: 'assistant', content: 'Tea noted for Alice.' },
    ];
    expect(await engine.transcripts.append({ agentId: 'a', sessionKey: 'done', turns })).toEqual({
      sessionKey: 'done',
      appended: 2,
      duplicates: 0,
      dropped: 1,
    });
    expect(await engine.transcripts.complete({ agentId: 'a', sessionKey: 'done' })).toEqual({ completed: true });
    await engine.transcripts.append({ agentId: 'a', sessionKey: 'idle', turns: turns.slice(0, 1) });
    await engine.transcripts.append({
      agentId: 'b',
      sessionKey: 'done',
      turns: [{ role: 'user', content: 'tea tea' }],
    });
    const refused = await engine.transcripts
      .append({ agentId: 'a', sessionKey: 'done', turns })
      .catch((e: unknown) => e);
    expect(isMemoryError(refused, 'CONFLICT')).toBe(true);

    const hits = await engine.transcripts.search({ agentId: 'a', query: 'Alice tea' });
    expect(hits.map((h) => [h.sessionKey, h.role])).toEqual([
      ['done', 'user'],
      ['done', 'assistant'],
    ]);
    expect(await engine.transcripts.get({ agentId: 'b', sessionKey: 'idle' })).toBeUndefined();

    // The idle sweep is part of the engine's periodic upkeep on every dialect (`runDue` runs it once).
    clock.advance(3_600_001);
    await engine.runDue();
    expect((await engine.transcripts.get({ agentId: 'a', sessionKey: 'idle' }))?.completedAt).not.toBeNull();
    expect((await engine.transcripts.list({ agentId: 'a', completed: true })).map((s) => s.sessionKey).sort()).toEqual([
      'done',
      'idle',
    ]);
  });

  it.skipIf(backend.skip)('imports through the engine’s workers, pauses, resumes and removes the source', async () => {
    const clock = createManualClock(T0);
    const engine = await backend.open({
      clock,
      scheduler: createManualScheduler(clock),
      config: { imports: { allowedDirectories: [directory], batchRecords: 2, inventoryBatchLines: 2 } },
    });
    const { jobId } = await engine.imports.start({ agentId: 'target', file: exportFile([1, 2, 3, 4, 5]) });
    expect(await engine.imports.pause({ agentId: 'target', jobId })).toMatchObject({ status: 'paused' });
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({ status: 'paused' });
    await engine.imports.resume({ agentId: 'target', jobId });
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 5, imported: 5 },
    });
    expect((await engine.imports.records({ agentId: 'target', jobId })).map((r) => r.sessionKey)).toEqual(
      [1, 2, 3, 4, 5].map((n) => `session-${n}`),
    );
    expect((await engine.transcripts.search({ agentId: 'target', query: 'bullet', limit: 20 })).length).toBe(5);
    expect(await engine.imports.status({ agentId: 'elsewhere', jobId })).toBeUndefined();

    // Knowledge Dreaming distilled from an imported conversation cites it: removing the source
    // opens review attention for it on every dialect.
    const entity = await engine.dreaming.apply({
      agentId: 'target',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Imported Topic' },
          evidence: [{ sourceRef: 'transcript:session-3', quote: 'Answer 3.' }],
        },
      ],
    });
    expect(entity.applied).toHaveLength(1);
    expect((await engine.dreaming.attention({ agentId: 'target' })).items).toEqual([]);

    expect(await engine.imports.removeSource({ agentId: 'target', jobId })).toEqual({ removedSessions: 5 });
    expect((await engine.dreaming.attention({ agentId: 'target' })).items.map((a) => [a.kind, a.subjectRef])).toEqual([
      ['review_due', `entity:${entity.applied[0]?.targetId}`],
    ]);
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([]);
    expect(await engine.transcripts.search({ agentId: 'target', query: 'bullet' })).toEqual([]);
  });
});
