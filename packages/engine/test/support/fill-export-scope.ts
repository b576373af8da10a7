// The scope the export tests move around (`export.test.ts` on SQLite, `dialects/export-import.test.ts`
// from SQLite to every backend; `notes-export.test.ts` its notes), and the reads they make of an export.
import type { MemoryEngine } from '../../src/index.js';

/** Every line of an export (or any async iterable of lines). */
export async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** The records of an export, without the header's export time. */
export function records(lines: readonly string[]): Array<Record<string, unknown>> {
  return lines.map((l) => {
    const { exportedAt: _, ...rest } = JSON.parse(l) as Record<string, unknown>;
    return rest;
  });
}

/**
 * Two notes in `agentId`'s scope: "Call Alice" (tagged, linked to contact 42, then updated: two
 * events) and "Book gym" (resolved). `advance` steps the clock before the update.
 */
export async function createExportNotes(engine: MemoryEngine, agentId: string, advance: () => void = () => undefined) {
  const renewal = await engine.notes.create({
    agentId,
    title: 'Call Alice',
    content: 'About the renewal quote',
    tags: ['sales'],
    linkedEntities: [{ type: 'contact', refId: '42', label: 'Alice Chen' }],
  });
  advance();
  await engine.notes.update({ agentId, id: renewal.id, content: 'About the renewal quote, sent', reason: 'sent' });
  const gym = await engine.notes.create({ agentId, title: 'Book gym', content: 'personal trainer' });
  await engine.notes.resolve({ agentId, id: gym.id });
  return { renewal, gym };
}

/** What {@link fillExportScope} made that the tests read back by id. */
export interface ExportScopeIds {
  /** The renewal note (updated once), then the resolved gym note. */
  readonly notes: readonly string[];
  /** The one registry category (linked to the tea memory, the renewal note and a host object). */
  readonly categories: readonly string[];
  /** The pinned tea memory. */
  readonly tea: string;
}

/**
 * Fills agent `a`'s scope with a bit of everything an export carries: a completed transcript; two
 * entities (one with an alias), an aspect with a claim and a link between them; five memories (one
 * modified, so with two history rows and an inline mention of Project Atlas; one forgotten; one
 * pinned; the chunk of one document); two notes (one updated, one resolved) and a category with
 * three links. Agent `someone-else` gets one memory the export must leave out. `advance` steps the
 * clock between writes, so every row has a time of its own and orders the same on every backend.
 */
export async function fillExportScope(engine: MemoryEngine, advance: () => void): Promise<ExportScopeIds> {
  const agentId = 'a';
  await engine.transcripts.append({
    agentId,
    sessionKey: 'chat-1',
    turns: [
      { role: 'user', content: 'Project Atlas is our billing rewrite, owned by Dana Whitfield.' },
      { role: 'assistant', content: 'Noted: Atlas ships in March.' },
    ],
  });
  await engine.transcripts.complete({ agentId, sessionKey: 'chat-1' });
  const made = await engine.dreaming.apply({
    agentId,
    operations: [
      {
        operation: 'create_entity',
        payload: { name: 'Project Atlas', aliases: ['Atlas'] },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Project Atlas is our billing rewrite' }],
      },
      {
        operation: 'create_entity',
        payload: { name: 'Dana Whitfield' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'owned by Dana Whitfield' }],
      },
    ],
  });
  const [atlas, dana] = made.applied.map((a) => a.targetId);
  const aspect = await engine.dreaming.apply({
    agentId,
    operations: [
      {
        operation: 'create_aspect',
        payload: { entityId: atlas, name: 'schedule' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Atlas ships in March' }],
      },
      {
        operation: 'create_link',
        payload: { sourceEntityId: atlas, targetEntityId: dana, type: 'owned_by' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'owned by Dana Whitfield' }],
      },
    ],
  });
  await engine.dreaming.apply({
    agentId,
    operations: [
      {
        operation: 'add_claim',
        payload: { aspectId: aspect.applied[0]?.targetId, claimKey: 'ship', content: 'Atlas ships in March.' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Atlas ships in March' }],
      },
    ],
  });
  advance();
  // Inline linking gives this memory a mention of Project Atlas.
  const standup = await engine.remember({
    agentId,
    content: 'Project Atlas standup moved to 10:00',
    tags: ['team'],
    linkedEntities: [{ type: 'contact', refId: '42', label: 'Dana' }],
  });
  advance();
  await engine.modify({
    agentId,
    id: standup.id,
    reason: 'moved again',
    content: 'Project Atlas standup moved to 10:30',
  });
  advance();
  const gone = await engine.remember({ agentId, content: 'A forgotten detail', type: 'decision', importance: 0.2 });
  await engine.forget({ agentId, id: gone.id, reason: 'wrong' });
  advance();
  const tea = await engine.remember({ agentId, content: 'Alice prefers green tea', type: 'preference', pinned: true });
  advance();
  await engine.remember({ agentId, content: 'Bob drinks black tea at the standup', type: 'fact' });
  await engine.documents.add({
    agentId,
    content: 'Atlas design doc: invoices are generated nightly.',
    title: 'Design',
  });
  await engine.runDue();
  advance();
  const { renewal, gym } = await createExportNotes(engine, agentId, advance);
  advance();
  const finance = await engine.registry.create({ agentId, name: 'Personal Finance', description: 'money' });
  await engine.registry.link({ agentId, id: finance.id, object: { kind: 'memory', id: tea.id } });
  await engine.registry.link({ agentId, id: finance.id, object: { kind: 'note', id: renewal.id } });
  await engine.registry.link({ agentId, id: finance.id, object: { kind: 'host', type: 'account', refId: 'chk-1' } });
  await engine.remember({ agentId: 'someone-else', content: 'not exported' });
  return { notes: [renewal.id, gym.id], categories: [finance.id], tea: tea.id };
}
