import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../src/index.js';

describe('note history snapshots', () => {
  it('reads snapshot times stored as ISO text (older rows, older exports) as epoch milliseconds', async () => {
    const database = new Database(':memory:');
    const engine = await createMemoryEngine({ database: { database } });
    const note = await engine.notes.create({ agentId: 'a', title: 'Call Alice', content: 'About the renewal' });
    const iso = new Date(note.createdAt).toISOString();
    const snapshot = { ...note, createdAt: iso, updatedAt: iso, resolvedAt: 'not a time', archivedAt: null };
    database.prepare('UPDATE note_events SET after_json = ? WHERE note_id = ?').run(JSON.stringify(snapshot), note.id);

    const [created] = await engine.notes.history({ agentId: 'a', id: note.id });
    expect(created?.after).toEqual({ ...note, resolvedAt: null, archivedAt: null });
    expect(typeof created?.at).toBe('number');
    await engine.close();
  });
});
