import { createManualClock, createSequentialIds, resolveConfig } from '@memory/core';
import { findNoteProgram, insertNoteProgram, listNoteEventsProgram } from '@memory/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type MemoryBackend,
  openPgliteBackend,
  openServerBackend,
  openSqliteBackend,
} from '../../../store/test/postgres/memory-backends.js';
import { postgresTestServer } from '../../../store/test/support/postgres.js';
import { noteStaleBefore, reapNotesProgram } from '../../src/note-reaping.js';

// Note reaping's one transaction, as the maintenance task runs it, on SQLite, PGlite and the real
// server: stale active notes of every agent archived with an engine audit row, nothing else touched.

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const server = await postgresTestServer();
const BACKENDS = [
  { label: 'sqlite', open: openSqliteBackend, skip: false },
  { label: 'postgres (PGlite)', open: openPgliteBackend, skip: false },
  {
    label: `postgres (server)${server.available ? '' : ` (skipped: ${server.reason})`}`,
    open: openServerBackend,
    skip: !server.available,
  },
];

describe.each(BACKENDS)('note reaping on $label', ({ open, skip }) => {
  if (skip) {
    it.skip('needs a PostgreSQL server', () => {});
    return;
  }
  let db: MemoryBackend;
  beforeAll(async () => {
    db = await open();
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it('archives stale active notes of every agent with an audit row; resolved and fresh ones stay', async () => {
    const config = resolveConfig({ notes: { reapAfterDays: 30 } });
    const clock = createManualClock(T0);
    const ids = createSequentialIds('n');
    const note = (agentId: string, title: string, updatedAt: number, status: 'active' | 'resolved' = 'active') => ({
      id: ids.next(),
      agent_id: agentId,
      title,
      content: 'x',
      tags: '[]',
      status,
      linked_entities: '[]',
      created_at: updatedAt,
      updated_at: updatedAt,
      resolved_at: null,
      archived_at: null,
    });
    const old = T0 - 40 * DAY;
    const rows = await db.write(({ dialect }) =>
      (function* () {
        return [
          yield* insertNoteProgram(dialect, note('a', 'stale a', old)),
          yield* insertNoteProgram(dialect, note('b', 'stale b', old + 1)),
          yield* insertNoteProgram(dialect, note('a', 'stale but resolved', old, 'resolved')),
          yield* insertNoteProgram(dialect, note('a', 'fresh', T0 - DAY)),
        ];
      })(),
    );
    expect(noteStaleBefore(config, T0)).toBe(T0 - 30 * DAY);
    const step = await db.write(({ dialect }) => reapNotesProgram({ dialect, clock, ids }, config));
    expect(step).toEqual({ archived: 2, done: true });
    const statuses = await db.read(function* () {
      const out: string[] = [];
      for (const row of rows) out.push((yield* findNoteProgram(row.agent_id, row.id))?.status ?? 'missing');
      return out;
    });
    expect(statuses).toEqual(['archived', 'archived', 'resolved', 'active']);
    const events = await db.read(() => listNoteEventsProgram('b', rows[1]?.id ?? ''));
    expect(events).toMatchObject([
      { event: 'archived', actor: 'engine', actor_type: 'engine', reason: 'reaped: not updated for 30 days' },
    ]);
    expect(JSON.parse(events[0]?.metadata ?? '{}')).toEqual({ task: 'reap', afterDays: 30, lastUpdatedAt: old + 1 });
    expect(await db.write(({ dialect }) => reapNotesProgram({ dialect, clock, ids }, config))).toEqual({
      archived: 0,
      done: true,
    });
  });
});
