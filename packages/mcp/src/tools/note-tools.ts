import type { MemoryEngine, Note } from '@memory/engine';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { iso, runTool, toolResult } from '../tool-result.js';

const STATUSES = ['active', 'resolved', 'archived'] as const;

const id = z.string().min(1).describe('The note id, as returned by note_create, note_list, note_search or recall.');
const reason = z.string().min(1).describe('Why, in a short sentence; it is kept in the note history.');
const tags = z.array(z.string().min(1)).describe('Short labels to filter by later, e.g. ["acme", "follow-up"].');
const entity = z
  .object({
    type: z.string().min(1).describe('The kind of host object, e.g. "contact", "ticket", "thread".'),
    refId: z.string().min(1).describe("The host's id for it."),
  })
  .describe('A host object the note is about.');
const linkedEntities = z
  .array(entity.extend({ label: z.string().min(1).optional().describe('A name to show, e.g. "Dana Lee".') }))
  .describe('Host objects the note is about (a contact, a ticket); replaces the old list on update.');
const status = z.enum(STATUSES);

const noteSchema = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  status,
  tags: z.array(z.string()),
  linkedEntities: z.array(z.object({ type: z.string(), refId: z.string(), label: z.string().optional() })),
  createdAt: z.string(),
  updatedAt: z.string(),
  resolvedAt: z.string().nullable(),
  archivedAt: z.string().nullable(),
});

/** The note fields a model needs (the agent id is the server's own), times as ISO strings. */
export function noteView(n: Note): z.infer<typeof noteSchema> {
  return {
    id: n.id,
    title: n.title,
    content: n.content,
    status: n.status,
    tags: [...n.tags],
    linkedEntities: n.linkedEntities.map((e) => ({ ...e })),
    createdAt: new Date(n.createdAt).toISOString(),
    updatedAt: new Date(n.updatedAt).toISOString(),
    resolvedAt: iso(n.resolvedAt),
    archivedAt: iso(n.archivedAt),
  };
}

/** One line per note, ending with the id to act on, as recall's lines do. */
const noteLine = (n: Note, score?: number): string =>
  `- [note · ${n.status}${score === undefined ? '' : ` · ${score.toFixed(2)}`}] ${n.title}: ${n.content} [note id: ${n.id}]`;

const writeAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;
const noteOutput = { note: noteSchema };

/** note_create, note_update, note_resolve, note_archive: each a call of `engine.notes` in the server's scope. */
export function registerNoteWriteTools(server: McpServer, engine: MemoryEngine, agentId: string): void {
  server.registerTool(
    'note_create',
    {
      title: 'Create note',
      description:
        'Keep a working note: short-lived context for ongoing work (meeting prep, an action item, a follow-up), ' +
        'unlike remember, which is for durable facts. Resolve it when done, archive it when no longer relevant.',
      inputSchema: {
        title: z.string().min(1).describe('A short title, e.g. "Renewal call prep".'),
        content: z.string().min(1).describe('The note itself.'),
        tags: tags.optional(),
        linkedEntities: linkedEntities.optional(),
      },
      outputSchema: noteOutput,
      annotations: { ...writeAnnotations, idempotentHint: false },
    },
    (args) =>
      runTool(async () => {
        const note = await engine.notes.create({ ...args, agentId });
        return toolResult(`Created note ${note.id}: ${note.title}`, { note: noteView(note) });
      }),
  );

  server.registerTool(
    'note_update',
    {
      title: 'Update note',
      description:
        'Change the title, content, tags or linked entities of an active or resolved note (give at least one). ' +
        'Lists given replace the old ones.',
      inputSchema: {
        id,
        title: z.string().min(1).optional().describe('The new title.'),
        content: z.string().min(1).optional().describe('The new content, replacing the old.'),
        tags: tags.optional(),
        linkedEntities: linkedEntities.optional(),
        reason: reason.optional(),
      },
      outputSchema: noteOutput,
      annotations: { ...writeAnnotations, idempotentHint: true },
    },
    (args) =>
      runTool(async () => {
        const note = await engine.notes.update({ ...args, agentId });
        return toolResult(`Updated note ${note.id}: ${note.title}`, { note: noteView(note) });
      }),
  );

  for (const [action, title, description] of [
    ['resolve', 'Resolve note', 'Mark an active note resolved: the work it tracked is done. It stays readable.'],
    [
      'archive',
      'Archive note',
      'Archive an active or resolved note that is no longer relevant: recall stops returning it.',
    ],
  ] as const) {
    server.registerTool(
      `note_${action}`,
      {
        title,
        description,
        inputSchema: { id, reason: reason.optional() },
        outputSchema: noteOutput,
        annotations: { ...writeAnnotations, idempotentHint: false },
      },
      (args) =>
        runTool(async () => {
          const note = await engine.notes[action]({ ...args, agentId });
          return toolResult(`Note ${note.id} is ${note.status}.`, { note: noteView(note) });
        }),
    );
  }
}

/** note_search and note_list: reads of `engine.notes` in the server's scope. */
export function registerNoteReadTools(server: McpServer, engine: MemoryEngine, agentId: string): void {
  server.registerTool(
    'note_search',
    {
      title: 'Search notes',
      description:
        'Find working notes by text, by the host object they are about, or by status; best match first. ' +
        'recall with include ["memories", "notes"] searches notes and memories together.',
      inputSchema: {
        query: z.string().min(1).optional().describe('What to look for; leave out to filter by entity or status only.'),
        entity: entity.optional(),
        status: status.optional().describe('Only notes with this status.'),
        limit: z.number().int().min(1).max(100).optional().describe('At most this many notes (default 10).'),
      },
      outputSchema: { hits: z.array(z.object({ note: noteSchema, score: z.number() })) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const hits = await engine.notes.search({ ...args, agentId });
        const text = hits.length === 0 ? 'NO MATCHING NOTES' : hits.map((h) => noteLine(h.note, h.score)).join('\n');
        return toolResult(text, { hits: hits.map((h) => ({ note: noteView(h.note), score: h.score })) });
      }),
  );

  server.registerTool(
    'note_list',
    {
      title: 'List notes',
      description:
        'List working notes, newest first, e.g. the active ones before planning the day. Pass nextCursor back ' +
        'as cursor for the next page.',
      inputSchema: {
        status: status.optional().describe('Only notes with this status (e.g. active).'),
        entity: entity.optional(),
        tags: tags.optional().describe('Only notes carrying every one of these tags.'),
        cursor: z.string().min(1).optional().describe('nextCursor of the previous page.'),
        limit: z.number().int().min(1).max(500).optional().describe('At most this many notes (default 50).'),
      },
      outputSchema: { items: z.array(noteSchema), nextCursor: z.string().nullable() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const page = await engine.notes.list({ ...args, agentId });
        const lines = page.items.map((n) => noteLine(n));
        if (page.nextCursor !== null) lines.push(`(more: cursor ${page.nextCursor})`);
        return toolResult(lines.length === 0 ? 'NO NOTES' : lines.join('\n'), {
          items: page.items.map(noteView),
          nextCursor: page.nextCursor,
        });
      }),
  );
}
