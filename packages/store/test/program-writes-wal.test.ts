import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { run } from '../src/program/program.js';
import { walHighWater, walRestarts } from './support/wal-files.js';

// Notes, the registry, Dreaming and transcripts write through programs (`store.db.write`). A host
// that writes a note per event, one after another, must not grow the WAL to the writer's own
// checkpoint (a copy and fsync inside a COMMIT on the event loop): past the restart point a program
// write waits for a background checkpoint that covers every commit, as memory writes do.
describe('program writes, one after another', () => {
  it('wait at the WAL restart point, so the WAL keeps restarting near it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-program-wal-'));
    const path = join(dir, 'wal.db');
    try {
      const store = await openStore({ path, wal: { restartFrames: 1_000, writerCheckpointFrames: 1_000_000 } });
      store.database.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      // The worker has started (until its first reply there is no WAL length to go by).
      await store.checkpoint();
      const restartsBefore = walRestarts(path);
      const writes = 1_500;
      let lastTurn = performance.now();
      // ~8 KB a row: two overflow pages and the table's leaf, three or more frames per commit.
      const body = 'kettle budget review '.repeat(400);
      for (let i = 0; i < writes; i++) {
        const written = await store.db.write(function* () {
          return yield* run({ sql: 'INSERT INTO scratch (body) VALUES (?)', parameters: [`${i}: ${body}`] });
        });
        expect(written.changes).toBe(1);
        // The engine's calls let the event loop turn after 10 ms without one (the worker's replies
        // are read there); a turn after every write would give the worker time to catch up alone.
        if (performance.now() - lastTurn > 10) {
          await nextTurn();
          lastTurn = performance.now();
        }
      }
      const highWater = walHighWater(path);
      const restarts = walRestarts(path) - restartsBefore;
      const stored = store.database.prepare('SELECT count(*) AS n FROM scratch').get();
      await store.close();
      expect(stored).toEqual({ n: writes });
      // The writes filled the restart point several times over (9–10 restarts, high-water ~1,000
      // frames); without the waits the WAL restarted once and grew to 6,193 frames (to 64,000, the
      // writer's own checkpoint, at the default limits).
      expect(restarts).toBeGreaterThanOrEqual(3);
      expect(highWater).toBeLessThan(2_000);
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 60_000);
});
