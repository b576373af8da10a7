import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { defaultConfig } from '@memory/core';
import { openStore } from '@memory/store';
import { describe, expect, it } from 'vitest';
import { createTranscriptSchemas } from '../src/transcripts/inputs.js';
import { createTranscripts } from '../src/transcripts/transcripts.js';

// A WAL frame: its 24-byte header and one 4 KiB page; the file starts with a 32-byte header.
const FRAME_BYTES = 4096 + 24;

/** The WAL header's checkpoint sequence number: SQLite adds one each time the WAL restarts. */
function walRestarts(path: string): number {
  const fd = openSync(`${path}-wal`, 'r');
  const header = Buffer.alloc(16);
  readSync(fd, header, 0, 16, 0);
  closeSync(fd);
  return header.readUInt32BE(12);
}

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
      const highWater = Math.round((statSync(`${path}-wal`).size - 32) / FRAME_BYTES);
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
