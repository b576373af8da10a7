import { agentIdSchema, parseInput, throwIfAborted, yieldToEventLoop } from '@memory/core';
import { EXPORT_FORMAT, EXPORT_VERSION } from '@memory/ingest';
import {
  type Program,
  presentTablesProgram,
  scopeCategoryPartsProgram,
  scopeDocumentPartsProgram,
  scopeEntityPartsProgram,
  scopeKeyedPageProgram,
  scopeMemoriesPageProgram,
  scopeMemoryPartsProgram,
  scopeNoteEventsProgram,
  scopeTurnsProgram,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';

/** `engine.export`: one agent scope. */
export interface ExportInput {
  readonly agentId: string;
  /** Checked between pages; an aborted export stops (its iterator rejects). */
  readonly signal?: AbortSignal | undefined;
}

const exportSchema = z.strictObject({
  agentId: agentIdSchema,
  signal: z.instanceof(AbortSignal, { error: 'signal must be an AbortSignal' }).optional(),
});

// Rows read per store call: each page is one short read, and the event loop runs between pages.
const PAGE = 200;

const line = (record: Record<string, unknown>): string => `${JSON.stringify(record)}\n`;

/**
 * The scope as JSONL (format `memory-export`, version 1; README "Export format"): a header, then
 * entities (with aliases, aspects and claims), links, memories (with history and entity mentions,
 * forgotten ones included), transcripts (with turns), documents (with text and chunk memories),
 * working notes (with their audit events), registry categories (with their links and audit events), and a footer with the record count. Read page by page, so memory use stays flat; each page is a
 * consistent read, the whole export is not one snapshot (write nothing to the scope meanwhile for a
 * point-in-time copy). `engine.imports.start` reads it back into any scope.
 */
export async function* exportScope(ctx: EngineContext, input: unknown): AsyncGenerator<string, void, undefined> {
  const { agentId, signal } = parseInput(exportSchema, input, 'export');
  const { portable: store } = ctx;
  let records = 0;
  const emit = (record: Record<string, unknown>): string => {
    records++;
    return line(record);
  };
  const page = async <T>(read: () => Program<T>): Promise<T> => {
    throwIfAborted(signal, 'export');
    await yieldToEventLoop();
    return store.db.read(read);
  };
  // On PostgreSQL a subject's tables exist once its form has landed; a scope has no rows in one
  // that does not exist, so its section is empty.
  const present = await store.db.read(() =>
    presentTablesProgram(['session_transcripts', 'documents', 'notes', 'registry_categories']),
  );
  yield emit({
    kind: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    agentId,
    exportedAt: store.clock.now(),
  });

  for (let after = ''; ; ) {
    const entities = await page(function* () {
      const rows = yield* scopeKeyedPageProgram('entities', agentId, after, PAGE);
      const out = [];
      for (const row of rows) out.push({ row, ...(yield* scopeEntityPartsProgram(agentId, String(row['id']))) });
      return out;
    });
    for (const { row, aliases, aspects, claims } of entities)
      yield emit({ kind: 'entity', ...row, aliases, aspects, claims });
    if (entities.length < PAGE) break;
    after = String(entities[entities.length - 1]?.row['id']);
  }

  for (let after = ''; ; ) {
    const links = await page(() => scopeKeyedPageProgram('entity_dependencies', agentId, after, PAGE));
    for (const row of links) yield emit({ kind: 'link', ...row });
    if (links.length < PAGE) break;
    after = String(links[links.length - 1]?.['id']);
  }

  for (let after: { createdAt: number; seq: number } | undefined; ; ) {
    const cursor = after;
    const { rows, last } = await page(function* () {
      const result = yield* scopeMemoriesPageProgram(agentId, cursor, PAGE);
      const withParts = [];
      for (const row of result.rows)
        withParts.push({ row, ...(yield* scopeMemoryPartsProgram(agentId, String(row['id']))) });
      return { rows: withParts, last: result.last };
    });
    for (const { row, history, mentions } of rows) yield emit({ kind: 'memory', ...row, history, mentions });
    if (rows.length < PAGE || !last) break;
    after = last;
  }

  for (let after = ''; present.has('session_transcripts'); ) {
    const transcripts = await page(function* () {
      const rows = yield* scopeKeyedPageProgram('session_transcripts', agentId, after, PAGE);
      const out = [];
      for (const row of rows) out.push({ row, turns: yield* scopeTurnsProgram(agentId, String(row['session_key'])) });
      return out;
    });
    for (const { row, turns } of transcripts) yield emit({ kind: 'transcript', ...row, turns });
    if (transcripts.length < PAGE) break;
    after = String(transcripts[transcripts.length - 1]?.row['session_key']);
  }

  // Documents carry their whole text: one per page, so a large one is one read.
  for (let after = ''; present.has('documents'); ) {
    const [document] = await page(function* () {
      const out = [];
      for (const row of yield* scopeKeyedPageProgram('documents', agentId, after, 1))
        out.push({ row, ...(yield* scopeDocumentPartsProgram(agentId, String(row['id']))) });
      return out;
    });
    if (!document) break;
    yield emit({ kind: 'document', ...document.row, content: document.content, memories: document.memories });
    after = String(document.row['id']);
  }

  for (let after = ''; present.has('notes'); ) {
    const notes = await page(function* () {
      const rows = yield* scopeKeyedPageProgram('notes', agentId, after, PAGE);
      const out = [];
      for (const row of rows) out.push({ row, events: yield* scopeNoteEventsProgram(agentId, String(row['id'])) });
      return out;
    });
    for (const { row, events } of notes) yield emit({ kind: 'note', ...row, events });
    if (notes.length < PAGE) break;
    after = String(notes[notes.length - 1]?.row['id']);
  }

  // Categories come last (their links point at the objects above), one per page like documents: a
  // category's links and audit events travel inside its record and can be many.
  for (let after = ''; present.has('registry_categories'); ) {
    const [category] = await page(function* () {
      const out = [];
      for (const row of yield* scopeKeyedPageProgram('registry_categories', agentId, after, 1))
        out.push({ row, ...(yield* scopeCategoryPartsProgram(agentId, String(row['id']))) });
      return out;
    });
    if (!category) break;
    yield emit({ kind: 'category', ...category.row, links: category.links, events: category.events });
    after = String(category.row['id']);
  }

  yield line({ kind: 'footer', records: records + 1 });
}
