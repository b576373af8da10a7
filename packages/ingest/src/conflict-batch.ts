import {
  createMemoriesProgram,
  findLiveMemoryIdByHashProgram,
  type MemoriesTop,
  type MemoryVector,
  memoriesTopProgram,
  type PortableStore,
  runNested,
  runWriterProgram,
} from '@memory/store';
import { bestStoredMatch, conflictApplies, itemKeyHash, keyIndexOf, mergeConflict } from './conflict.js';
import type { ConflictKeyIndex } from './conflict-keys.js';
import { countDuplicatesProgram, newMemory, type Prepared, type RememberResult, scopesOf } from './remember.js';
import { type MemoryWriter, writeDeps } from './writer.js';

// Conflict detection for `rememberMany`: the same rule as `remember` (conflict.ts), applied to each
// checked item of a batch in input order inside the batch's write transaction, so every item sees
// what the batch's earlier items did, exactly as remembering the items one by one would. What an
// item may update is found by the rule's key, not by a vector search per item: the scope's stored
// memories through the key index (refreshed once per scope and batch, before the transaction), and
// the memories the batch wrote or updated so far by their key. Only an item with such candidates
// reads anything (their rows and vectors) before it is written.

/** The conflict key hash of each item of a checked kind, and whether any item is checked. */
export interface BatchKeys {
  readonly hashes: ReadonlyMap<Prepared, number>;
}

/** Key hashes of the batch's items of checked kinds (opted-out items too: they can be merged into). */
export function batchKeys(writer: MemoryWriter<PortableStore>, items: readonly Prepared[]): BatchKeys {
  const { types } = writer.config.remember.conflict;
  const hashes = new Map<Prepared, number>();
  if (!writer.embedder || !writer.config.remember.conflict.enabled) return { hashes };
  for (const item of items) {
    if (!types.includes(item.input.type)) continue;
    const hash = itemKeyHash(item);
    if (hash !== undefined) hashes.set(item, hash);
  }
  return { hashes };
}

/**
 * Items whose vector conflict detection needs even though their content is already live (or
 * repeats an earlier item): a checked item whose key an earlier checked item of the batch shares.
 * That item may update the live copy, and then remembering this one updates it again rather than
 * being a duplicate, as it would be one by one.
 */
export function mayNeedVector(
  writer: MemoryWriter<PortableStore>,
  items: readonly Prepared[],
  keys: BatchKeys,
): Set<Prepared> {
  const needed = new Set<Prepared>();
  const seen = new Set<string>();
  for (const item of items) {
    const hash = keys.hashes.get(item);
    if (hash === undefined || !conflictApplies(writer, item.input)) continue;
    const group = `${item.input.agentId}\u0000${hash}`;
    if (seen.has(group)) needed.add(item);
    seen.add(group);
  }
  return needed;
}

/**
 * Brings the key index up to date for the scopes of the batch's checked items (before the
 * transaction); returns it for {@link commitWithConflicts}.
 */
export async function refreshBatchKeys(
  writer: MemoryWriter<PortableStore>,
  items: readonly Prepared[],
): Promise<ConflictKeyIndex> {
  const index = keyIndexOf(writer);
  await index.refreshAll(
    writer.store,
    items.filter((item) => conflictApplies(writer, item.input)).map((item) => item.input.agentId),
    writer.config.remember.conflict.types,
  );
  return index;
}

/** What {@link commitWithConflicts} committed. */
export interface BatchCommit {
  /** One per item, in input order. */
  readonly results: RememberResult[];
  /** SQLite: the `memories` top row before and after the batch's inserts (for `ConflictKeyIndex.settle`). */
  readonly span?: { readonly before: MemoriesTop; readonly after: MemoriesTop } | undefined;
}

/**
 * Writes a batch in input order in one transaction: plain items through `createMemories` (in runs,
 * deduplicated as usual); a checked item with candidates (stored memories of its key, or memories
 * the batch wrote with its key) is judged against them as they are at that point of the
 * transaction and merged into the best one the rule accepts, or else stored as a new memory.
 */
export async function commitWithConflicts(
  writer: MemoryWriter<PortableStore>,
  items: readonly Prepared[],
  embeddingOf: (item: Prepared) => MemoryVector | undefined,
  keys: BatchKeys,
  index: ConflictKeyIndex,
): Promise<BatchCommit> {
  const { store } = writer;
  const deps = writeDeps(writer);
  let span: BatchCommit['span'];
  // Everything the program changes is made inside it: on PostgreSQL a re-run starts from scratch.
  const results = await runWriterProgram(store, { agentIds: scopesOf(items) }, function* (target) {
    const before = target.dialect === 'sqlite' ? yield* memoriesTopProgram() : undefined;
    const now = store.clock.now();
    const results: RememberResult[] = [];
    // Memories this batch wrote or updated, by agent and key; keys of items waiting in the run.
    const written = new Map<string, Set<string>>();
    const waiting = new Set<string>();
    // Contents of the items waiting in the run (by agent and content hash).
    const pending = new Set<string>();
    const groupOf = (item: Prepared, hash: number) => `${item.input.agentId}\u0000${hash}`;
    let run: number[] = [];
    const flush = function* () {
      if (run.length === 0) return;
      const done = yield* runNested(
        target,
        createMemoriesProgram(
          target,
          deps,
          run.map((i) => newMemory(writer, items[i] as Prepared, embeddingOf(items[i] as Prepared))),
          now,
        ),
      );
      done.forEach((result, k) => {
        const item = items[run[k] as number] as Prepared;
        results[run[k] as number] = result;
        const hash = keys.hashes.get(item);
        if (hash !== undefined) addTo(written, groupOf(item, hash), result.id);
      });
      yield* countDuplicatesProgram(
        run.map((i) => items[i] as Prepared),
        done,
        now,
      );
      run = [];
      waiting.clear();
      pending.clear();
    };
    for (const [i, item] of items.entries()) {
      const hash = keys.hashes.get(item);
      const embedding = embeddingOf(item);
      if (hash === undefined || !embedding || !conflictApplies(writer, item.input)) {
        if (hash !== undefined) waiting.add(groupOf(item, hash));
        pending.add(`${item.input.agentId}\u0000${item.hash}`);
        run.push(i);
        continue;
      }
      const group = groupOf(item, hash);
      const stored = index.candidates(item.input.agentId, hash);
      if (stored.length === 0 && !written.has(group) && !waiting.has(group)) {
        waiting.add(group);
        pending.add(`${item.input.agentId}\u0000${item.hash}`);
        run.push(i);
        continue;
      }
      // Items waiting in the run are created first only when one may be this item's match (rare):
      // the stored memories and those the batch already wrote are what they are either way.
      if (waiting.has(group)) yield* flush();
      // Live already, or waiting to be created (one by one, the plain path returns a duplicate).
      const contentKey = `${item.input.agentId}\u0000${item.hash}`;
      if (
        pending.has(contentKey) ||
        (yield* findLiveMemoryIdByHashProgram(item.input.agentId, item.hash)) !== undefined
      ) {
        waiting.add(group);
        pending.add(contentKey);
        run.push(i);
        continue;
      }
      const candidates = { seqs: stored, ids: [...(written.get(group) ?? [])] };
      const found = yield* bestStoredMatch(writer, item, embedding.vector, candidates, now);
      // An item waiting in the run that repeats the match's content is its duplicate (one by one it
      // came first): it is created (deduplicated) before the match takes the new content.
      if (found && pending.has(`${item.input.agentId}\u0000${found.row.content_hash}`)) yield* flush();
      const merged = found
        ? yield* mergeConflict(
            target,
            writer,
            deps,
            item,
            { id: found.row.id, contentHash: found.row.content_hash },
            embedding,
            found.cosine,
          )
        : undefined;
      if (merged) {
        results[i] = merged;
        addTo(written, group, merged.id);
      } else {
        waiting.add(group);
        pending.add(contentKey);
        run.push(i);
      }
    }
    yield* flush();
    if (before) span = { before, after: yield* memoriesTopProgram() };
    return results;
  });
  return { results, span };
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}
