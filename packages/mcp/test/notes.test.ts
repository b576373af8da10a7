import { createMemoryEngine, type MemoryEngine } from '@memory/engine';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHttpServer, startMcpHttpServer } from '../src/index.js';
import { call, newClient, text } from './helpers.js';

interface NoteOut {
  id: string;
  title: string;
  content: string;
  status: string;
  tags: string[];
  resolvedAt: string | null;
}

async function connect(url: string): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const noteOf = (result: Awaited<ReturnType<typeof call>>): NoteOut =>
  (result.structuredContent as { note: NoteOut }).note;

describe('working notes over MCP (Streamable HTTP on 127.0.0.1)', () => {
  let engine: MemoryEngine;
  let aliceServer: McpHttpServer;
  let bobServer: McpHttpServer;
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    engine = await createMemoryEngine({ database: { path: ':memory:' } });
    aliceServer = await startMcpHttpServer({ engine, agentId: 'alice', port: 0 });
    bobServer = await startMcpHttpServer({ engine, agentId: 'bob', port: 0 });
    [alice, bob] = await Promise.all([connect(aliceServer.url), connect(bobServer.url)]);
  });
  afterAll(async () => {
    await Promise.all([alice?.close(), bob?.close()]);
    await aliceServer?.close();
    await bobServer?.close();
    await engine?.close();
  });

  it('offers the note tools with descriptions and no agent argument', async () => {
    const { tools } = await alice.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['note_create', 'note_update', 'note_resolve', 'note_archive', 'note_search', 'note_list']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.description?.length, name).toBeGreaterThan(40);
      expect(Object.keys(tool?.inputSchema.properties ?? {}), name).not.toContain('agentId');
    }
    expect(names).toContain('recall');
    const recall = tools.find((t) => t.name === 'recall');
    expect(Object.keys(recall?.inputSchema.properties ?? {})).toContain('include');
  });

  it('creates, updates, lists, searches, resolves and archives a note', async () => {
    const created = await call(alice, 'note_create', {
      title: 'Renewal call prep',
      content: 'Ask Dana about the invoice dispute before the renewal call',
      tags: ['acme'],
      linkedEntities: [{ type: 'contact', refId: 'dana-1', label: 'Dana' }],
    });
    expect(created.isError).toBeFalsy();
    const note = noteOf(created);
    expect(note).toMatchObject({ title: 'Renewal call prep', status: 'active', tags: ['acme'] });
    expect(text(created)).toContain(note.id);
    expect((await engine.notes.get({ agentId: 'alice', id: note.id })).content).toBe(note.content);

    const updated = await call(alice, 'note_update', {
      id: note.id,
      content: 'Ask Dana about the invoice dispute; she prefers mornings',
      reason: 'new detail',
    });
    expect(noteOf(updated).content).toBe('Ask Dana about the invoice dispute; she prefers mornings');

    const listed = await call(alice, 'note_list', { status: 'active' });
    expect((listed.structuredContent as { items: NoteOut[] }).items.map((n) => n.id)).toEqual([note.id]);
    expect(text(listed)).toContain(`[note id: ${note.id}]`);
    const byEntity = await call(alice, 'note_search', { entity: { type: 'contact', refId: 'dana-1' } });
    expect((byEntity.structuredContent as { hits: Array<{ note: NoteOut }> }).hits.map((h) => h.note.id)).toEqual([
      note.id,
    ]);
    const found = await call(alice, 'note_search', { query: 'invoice dispute' });
    expect(text(found)).toContain('Renewal call prep');
    expect(text(await call(alice, 'note_search', { query: 'gardening tomatoes' }))).toBe('NO MATCHING NOTES');

    const resolved = await call(alice, 'note_resolve', { id: note.id, reason: 'call done' });
    expect(noteOf(resolved)).toMatchObject({ status: 'resolved', resolvedAt: expect.any(String) });
    const twice = await call(alice, 'note_resolve', { id: note.id });
    expect(twice.isError).toBe(true);
    expect(text(twice)).toMatch(/^CONFLICT: .*resolved/);
    expect(noteOf(await call(alice, 'note_archive', { id: note.id })).status).toBe('archived');
    expect(text(await call(alice, 'note_list', { status: 'active' }))).toBe('NO NOTES');
    const history = await engine.notes.history({ agentId: 'alice', id: note.id });
    expect(history.map((e) => e.event)).toEqual(['created', 'updated', 'resolved', 'archived']);
  });

  it("recall with include returns notes as kind 'note', beside memories", async () => {
    const memory = await call(alice, 'remember', { content: 'The quarterly budget review is owned by Priya' });
    const note = noteOf(
      await call(alice, 'note_create', {
        title: 'Budget review follow-up',
        content: 'Send Priya the quarterly budget numbers by Friday',
      }),
    );
    const both = await call(alice, 'recall', { query: 'quarterly budget Priya', include: ['memories', 'notes'] });
    expect(both.isError).toBeFalsy();
    const results = (both.structuredContent as { results: Array<{ kind: string; id: string; title?: string }> })
      .results;
    expect(Object.fromEntries(results.map((r) => [r.kind, r.id]))).toEqual({
      memory: (memory.structuredContent as { id: string }).id,
      note: note.id,
    });
    expect(results.find((r) => r.kind === 'note')?.title).toBe('Budget review follow-up');
    expect(text(both)).toContain(`[note id: ${note.id}]`);
    const plain = await call(alice, 'recall', { query: 'quarterly budget Priya' });
    expect((plain.structuredContent as { results: Array<{ kind: string }> }).results.map((r) => r.kind)).toEqual([
      'memory',
    ]);
    const bad = await call(alice, 'recall', { query: 'x', include: ['files'] });
    expect(bad.isError).toBe(true);
  });

  it("cannot reach another agent's note: the same NOT_FOUND as a missing one", async () => {
    const secret = noteOf(
      await call(alice, 'note_create', { title: 'Spare key', content: 'The spare key is under the blue pot' }),
    );
    for (const [name, args] of [
      ['note_update', { id: secret.id, title: 'hijacked' }],
      ['note_resolve', { id: secret.id }],
      ['note_archive', { id: secret.id }],
    ] as const) {
      const foreign = await call(bob, name, { ...args, agentId: 'alice' });
      const missing = await call(bob, name, { ...args, id: 'never-existed' });
      expect(foreign.isError).toBe(true);
      expect(text(foreign)).toMatch(/^NOT_FOUND: /);
      expect(text(missing).replace('never-existed', secret.id)).toBe(text(foreign));
    }
    expect(text(await call(bob, 'note_search', { query: 'spare key blue pot' }))).toBe('NO MATCHING NOTES');
    expect(text(await call(bob, 'note_list', {}))).toBe('NO NOTES');
    const recalled = await call(bob, 'recall', { query: 'spare key blue pot', include: ['notes'] });
    expect((recalled.structuredContent as { results: unknown[] }).results).toEqual([]);
    const kept = await engine.notes.get({ agentId: 'alice', id: secret.id });
    expect([kept.title, kept.status]).toEqual(['Spare key', 'active']);
  });

  it('reports invalid input as a tool error with the engine code', async () => {
    const empty = await call(alice, 'note_update', { id: 'whatever' });
    expect(empty.isError).toBe(true);
    expect(text(empty)).toMatch(/^INVALID_INPUT: /);
    const blank = await call(alice, 'note_create', { title: '   ', content: 'x' });
    expect(text(blank)).toMatch(/^INVALID_INPUT: /);
    const before = (await engine.notes.list({ agentId: 'alice' })).items.length;
    const missingTitle = await call(alice, 'note_create', { content: 'no title' });
    expect(missingTitle.isError).toBe(true);
    expect((await engine.notes.list({ agentId: 'alice' })).items).toHaveLength(before);
  });
});
