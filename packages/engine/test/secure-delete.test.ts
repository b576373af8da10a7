import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

const DAY = 86_400_000;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memory-secure-delete-'));
  dirs.push(dir);
  return join(dir, 'memory.db');
}

/** Every place on disk the database keeps bytes: the file, and the WAL when there is one. */
function fileBytes(path: string): Buffer {
  const parts = [readFileSync(path)];
  if (existsSync(`${path}-wal`)) parts.push(readFileSync(`${path}-wal`));
  return Buffer.concat(parts);
}

/** Whether the marker (as written, or lower-cased as the FTS index keeps its tokens) is in the bytes. */
function holds(bytes: Buffer, marker: string): boolean {
  return bytes.includes(Buffer.from(marker, 'utf8')) || bytes.includes(Buffer.from(marker.toLowerCase(), 'utf8'));
}

/** Checkpoints the WAL into the file from another connection, as any reader of the file could. */
function checkpoint(path: string): void {
  const db = new Database(path);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

describe('deletion we can prove', () => {
  it('leaves no byte of a purged memory in the database file or its WAL', async () => {
    const path = tempPath();
    const marker = 'QzxvPurgeMarker7731';
    const { engine, clock } = await createTestEngine({
      database: { path },
      embedder: createBagOfWordsEmbedder(),
    });
    const { id } = await engine.remember({ agentId: 'a', content: `The vault code is ${marker} for the east door` });
    // A content change keeps a cold copy and history of the old content: both must go too.
    await engine.modify({ agentId: 'a', id, reason: 'door', content: `The vault code is ${marker} for the west door` });
    await engine.remember({ agentId: 'a', content: 'An unrelated memory that stays' });
    checkpoint(path);
    // The search can fail: before the purge the marker is on disk.
    expect(holds(fileBytes(path), marker)).toBe(true);

    await engine.forget({ agentId: 'a', id, reason: 'secret' });
    clock.advance(31 * DAY);
    const [report] = await engine.maintenance.run({ task: 'purge' });
    expect(report?.purged?.memories).toBe(1);
    // The purge ends with a WAL truncation; whatever the WAL holds now was written after the purge.
    expect(holds(fileBytes(path), marker)).toBe(false);
    checkpoint(path);
    expect(holds(fileBytes(path), marker)).toBe(false);
    const recalled = await engine.recall({ agentId: 'a', query: 'vault code door' });
    expect(recalled.results.map((r) => r.id)).not.toContain(id);
    expect(JSON.stringify(recalled)).not.toContain(marker);
    await engine.close();
    expect(holds(fileBytes(path), marker)).toBe(false);
  });

  it('leaves no byte of an erased scope in the database file or its WAL', async () => {
    const path = tempPath();
    const marker = 'QzxvEraseMarker4402';
    const { engine } = await createTestEngine({ database: { path }, embedder: createBagOfWordsEmbedder() });
    await engine.remember({ agentId: 'gone', content: `Remember ${marker} as the wifi password` });
    await engine.transcripts.append({
      agentId: 'gone',
      sessionKey: 's1',
      turns: [{ role: 'user', content: `my wifi password is ${marker}` }],
    });
    await engine.transcripts.complete({ agentId: 'gone', sessionKey: 's1' });
    await engine.remember({ agentId: 'kept', content: 'another scope stays' });
    checkpoint(path);
    expect(holds(fileBytes(path), marker)).toBe(true);

    const result = await engine.erase({ agentId: 'gone' });
    expect(result.counts).toMatchObject({ memories: 1, session_transcripts: 1, session_transcript_turns: 1 });
    expect(holds(fileBytes(path), marker)).toBe(false);
    checkpoint(path);
    expect(holds(fileBytes(path), marker)).toBe(false);
    expect((await engine.list({ agentId: 'kept' })).memories).toHaveLength(1);
    await engine.close();
  });
});
