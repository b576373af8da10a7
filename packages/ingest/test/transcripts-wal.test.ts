import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { defaultConfig } from '@memory/core';
import { openStore } from '@memory/store';
import { describe, expect, it } from 'vitest';
import { walHighWater, walRestarts } from '../../store/test/support/wal-files.js';
import { createTranscriptSchemas } from '../src/transcripts/inputs.js';
import { createTranscripts } from '../src/transcripts/transcripts.js';

describe('transcripts.append, one turn at a time', () => {
  it('waits at the WAL restart point, so a stream of appends keeps the WAL near it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-transcripts-wal-'));
    const path = join(dir, 'wal.db');
    try {
      const store = await openStore({ path, wal: { restartFrames: 1_000, writerCheckpointFrames: 1_000_000 } });
      const transcripts = createTranscripts({
        store,
        config: defaultConfig,
        schemas: createTranscriptSchemas(defaultConfig),
      });
      // The worker has started (until its first reply there is no WAL length to go by).
      await store.checkpoint();
      const restartsBefore = walRestarts(path);
      const turns = 600;
      // ~8 KB of few words: overflow pages (WAL frames) without thousands of postings.
      const filler = 'kettle budget review '.repeat(400);
      for (let i = 0; i < turns; i++) {
        await transcripts.append({
          agentId: 'bot',
          sessionKey: `s${Math.floor(i / 40)}`,
          turns: [{ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}: ${filler}` }],
        });
        // The engine lets the event loop turn between calls; the worker's replies are read there.
        await nextTurn();
      }
      const highWater = walHighWater(path);
      const restarts = walRestarts(path) - restartsBefore;
      const stored = store.database.prepare('SELECT count(*) AS n FROM session_transcript_turns').get();
      await store.close();
      expect(stored).toEqual({ n: turns });
      // The appends wrote several times the restart point; without the waits the WAL kept growing.
      expect(restarts).toBeGreaterThanOrEqual(2);
      expect(highWater).toBeLessThan(3_000);
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 60_000);
});
