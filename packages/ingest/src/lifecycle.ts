import { type MemoryId, parseInput } from '@memory/core';
import {
  changeMemoryProgram,
  findMemoryProgram,
  forgetMemoryProgram,
  memoryNotFound,
  type PortableStore,
  recoverMemoryProgram,
  runWriterProgram,
} from '@memory/store';
import { type Memory, toMemory } from './memory-view.js';
import { prepareText } from './remember.js';
import { auditOf, embedOne, type MemoryWriter, writeDeps } from './writer.js';

const DAY_MS = 86_400_000;

function parseId(writer: MemoryWriter<PortableStore>, id: unknown, operation: string): MemoryId {
  return parseInput(writer.schemas.id, id, operation) as MemoryId;
}

/**
 * Changes a live memory's content, importance, tags or pinned flag through the store's memory
 * writer (history with old and new content; derived surfaces follow the new content). New content
 * that equals another live memory of the same agent is a `CONFLICT`.
 */
export async function modifyMemory(writer: MemoryWriter<PortableStore>, id: unknown, input: unknown): Promise<Memory> {
  const memoryId = parseId(writer, id, 'modify');
  const patch = parseInput(writer.schemas.modify, input, 'modify');
  // The same normalization and punctuation-only rule as remember.
  const content = patch.content === undefined ? undefined : prepareText(patch.content, 'modify');
  const { store } = writer;
  const current = content ? await store.db.read(() => findMemoryProgram(patch.agentId, memoryId)) : undefined;
  // Embedding is paid for only when the content really changes (and outside the transaction).
  const embedding =
    content && current && current.content !== content.content ? await embedOne(writer, content.content) : undefined;
  const deps = writeDeps(writer);
  const change = {
    agentId: patch.agentId,
    id: memoryId,
    content,
    embedding,
    importance: patch.importance,
    tags: patch.tags,
    pinned: patch.pinned,
    audit: auditOf(patch),
  };
  const row = await runWriterProgram(store, { agentIds: [patch.agentId] }, (target) =>
    changeMemoryProgram(target, deps, change, store.clock.now()),
  );
  return toMemory(row);
}

export interface ForgetResult {
  readonly id: MemoryId;
  /** False when the memory was already forgotten (nothing changed). */
  readonly forgotten: boolean;
}

/** Soft-deletes a memory (recoverable for `config.retention.recoverWindowDays`). Pinned memories need `force`. */
export async function forgetMemory(
  writer: MemoryWriter<PortableStore>,
  id: unknown,
  input: unknown,
): Promise<ForgetResult> {
  const memoryId = parseId(writer, id, 'forget');
  const options = parseInput(writer.schemas.forget, input, 'forget');
  const { store } = writer;
  const deps = writeDeps(writer);
  const request = { agentId: options.agentId, id: memoryId, force: options.force, audit: auditOf(options) };
  const forgotten = await runWriterProgram(store, { agentIds: [options.agentId] }, (target) =>
    forgetMemoryProgram(target, deps, request, store.clock.now()),
  );
  return { id: memoryId, forgotten };
}

/** Restores a forgotten memory within the recovery window; its vector, mentions and hints come back. */
export async function recoverMemory(writer: MemoryWriter<PortableStore>, id: unknown, input: unknown): Promise<Memory> {
  const memoryId = parseId(writer, id, 'recover');
  const options = parseInput(writer.schemas.recover, input, 'recover');
  const { store, config } = writer;
  const row = await store.db.read(() => findMemoryProgram(options.agentId, memoryId, { includeDeleted: true }));
  if (!row) throw memoryNotFound(memoryId);
  const embedding = row.is_deleted === 1 ? await embedOne(writer, row.content) : undefined;
  const deps = writeDeps(writer);
  const request = {
    agentId: options.agentId,
    id: memoryId,
    windowMs: config.retention.recoverWindowDays * DAY_MS,
    embedding,
    audit: auditOf(options),
  };
  const recovered = await runWriterProgram(store, { agentIds: [options.agentId] }, (target) =>
    recoverMemoryProgram(target, deps, request, store.clock.now()),
  );
  return toMemory(recovered);
}
