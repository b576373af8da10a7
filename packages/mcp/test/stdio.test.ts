import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, NODE_ARGS, newClient, REPO_ROOT, tempDir, text } from './helpers.js';

const tmp = tempDir();
const db = join(tmp.dir, 'memory.db');

/** The bin as a desktop client runs it: a child process spoken to over its stdin and stdout. */
async function connect(agent: string) {
  const client = newClient();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...NODE_ARGS, '--db', db, '--agent', agent],
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, transport };
}

describe('memory-mcp over stdio', () => {
  let alice: Awaited<ReturnType<typeof connect>>;
  let bob: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([connect('alice'), connect('bob')]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([alice?.client.close(), bob?.client.close()]);
    tmp.remove();
  });

  it('lists the tools and resources with descriptions', async () => {
    const { tools } = await alice.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'document_add',
        'forget',
        'history',
        'modify',
        'note_archive',
        'note_create',
        'note_list',
        'note_resolve',
        'note_search',
        'note_update',
        'recall',
        'remember',
        'transcript_append',
      ].sort(),
    );
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(40);
    // The scope is configuration: no tool offers an agent argument a model could change.
    for (const tool of tools) expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain('agentId');
    const { resources } = await alice.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['memory://head', 'memory://stats']);
  });

  it('remembers, recalls with ids, modifies, shows history and forgets', async () => {
    const remembered = await call(alice.client, 'remember', {
      content: 'Alice prefers green tea without sugar',
      type: 'preference',
      tags: ['drinks'],
    });
    expect(remembered.isError).toBeFalsy();
    const { id, deduped } = remembered.structuredContent as { id: string; deduped: boolean };
    expect(deduped).toBe(false);
    expect(text(remembered)).toContain(id);

    const again = await call(alice.client, 'remember', { content: 'Alice prefers green tea without sugar' });
    expect(again.structuredContent).toEqual({ id, deduped: true });

    const onlyFacts = await call(alice.client, 'recall', { query: 'what tea does Alice prefer', types: ['fact'] });
    expect(text(onlyFacts)).toBe('NO RELEVANT MEMORIES');
    const recalled = await call(alice.client, 'recall', { query: 'what tea does Alice prefer', types: ['preference'] });
    expect(text(recalled)).toContain('Alice prefers green tea without sugar');
    expect(text(recalled)).toContain(`[id: ${id}]`);
    const results = (recalled.structuredContent as { results: Array<{ id: string; type: string; createdAt: string }> })
      .results;
    expect(results[0]).toMatchObject({ id, type: 'preference' });
    expect(results[0]?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const modified = await call(alice.client, 'modify', {
      id,
      reason: 'she said she takes honey now',
      content: 'Alice prefers green tea with honey',
    });
    expect(text(modified)).toContain('with honey');

    const history = await call(alice.client, 'history', { id });
    const events = (history.structuredContent as { entries: Array<{ event: string; reason: string | null }> }).entries;
    expect(events.map((e) => e.event)).toEqual(['created', 'updated']);
    expect(events[1]?.reason).toBe('she said she takes honey now');

    const forgotten = await call(alice.client, 'forget', { id, reason: 'asked to forget' });
    expect(forgotten.structuredContent).toEqual({ id, forgotten: true });
    const after = await call(alice.client, 'recall', { query: 'what tea does Alice prefer' });
    expect(text(after)).not.toContain(id);
  });

  it('keeps transcripts and documents, and the resources count them', async () => {
    const appended = await call(alice.client, 'transcript_append', {
      sessionKey: 'chat-1',
      turns: [
        { role: 'user', content: 'I moved to Lisbon last month.' },
        { role: 'tool', content: '{"weather":"sunny"}' },
        { role: 'assistant', content: 'Noted: you live in Lisbon now.' },
      ],
    });
    expect(appended.structuredContent).toMatchObject({ sessionKey: 'chat-1', appended: 2, dropped: 1 });
    const doc = await call(alice.client, 'document_add', { content: 'Runbook: restart the queue with care.' });
    expect(doc.isError).toBeFalsy();
    expect((doc.structuredContent as { id: string }).id).toBeTruthy();

    const stats = await alice.client.readResource({ uri: 'memory://stats' });
    const body = JSON.parse((stats.contents[0] as { text: string }).text) as {
      agentId: string;
      sessions: { total: number; turns: number };
      documents: { total: number };
    };
    expect(body).toMatchObject({ agentId: 'alice', sessions: { total: 1, turns: 2 }, documents: { total: 1 } });
    const head = await alice.client.readResource({ uri: 'memory://head' });
    expect(head.contents[0]).toMatchObject({ uri: 'memory://head', mimeType: 'text/markdown', text: '' });
  });

  it('runs background work in the served process: an added document gets indexed and recalled', async () => {
    await call(alice.client, 'document_add', {
      content: 'Onboarding guide: new hires get their laptop from the front desk on day one.',
      title: 'Onboarding',
    });
    const deadline = Date.now() + 150_000;
    for (;;) {
      const stats = await alice.client.readResource({ uri: 'memory://stats' });
      const body = JSON.parse((stats.contents[0] as { text: string }).text) as {
        documents: { byStatus: Record<string, number> };
      };
      if ((body.documents.byStatus['done'] ?? 0) >= 2) break;
      if (Date.now() > deadline) throw new Error(`documents not indexed: ${JSON.stringify(body.documents)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const recalled = await call(alice.client, 'recall', { query: 'where do new hires get their laptop' });
    expect(text(recalled)).toContain('laptop from the front desk');
  }, 180_000);

  it("cannot reach another agent's scope, even when a model names it", async () => {
    const secret = await call(alice.client, 'remember', { content: 'Alice keeps the spare key under the blue pot' });
    const secretId = (secret.structuredContent as { id: string }).id;

    const recalled = await call(bob.client, 'recall', { query: 'spare key blue pot', agentId: 'alice' });
    expect(text(recalled)).toBe('NO RELEVANT MEMORIES');
    for (const [name, args] of [
      ['history', { id: secretId }],
      ['forget', { id: secretId, reason: 'x' }],
      ['modify', { id: secretId, reason: 'x', content: 'hijacked' }],
    ] as const) {
      const result = await call(bob.client, name, { ...args, agentId: 'alice' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^NOT_FOUND: /);
    }
    // An agentId argument is not part of any tool: bob's remember lands in bob's scope.
    await call(bob.client, 'remember', { content: 'Bob waters the plants on Fridays', agentId: 'alice' });
    expect(text(await call(alice.client, 'recall', { query: 'waters plants Fridays' }))).toBe('NO RELEVANT MEMORIES');
    expect(text(await call(bob.client, 'recall', { query: 'waters plants Fridays' }))).toContain('Bob waters');
    expect(text(await call(alice.client, 'recall', { query: 'spare key blue pot' }))).toContain(secretId);
    const bobStats = await bob.client.readResource({ uri: 'memory://stats' });
    expect(JSON.parse((bobStats.contents[0] as { text: string }).text)).toMatchObject({
      agentId: 'bob',
      sessions: { total: 0 },
      documents: { total: 0 },
    });
  });

  it('reports bad input as a tool error with the engine code', async () => {
    const result = await call(alice.client, 'forget', { id: 'no-such-memory', reason: 'x' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^NOT_FOUND: /);
    const bad = await call(alice.client, 'remember', { content: 'x', importance: 3 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/importance/);
  });
});
