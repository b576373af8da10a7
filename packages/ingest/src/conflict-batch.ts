import { createMemories, type MemoryVector } from '@memory/store';
import { conflictApplies, cosine, findConflict, linksOf, mergeConflict } from './conflict.js';
import { judgeConflict } from './conflict-rule.js';
import { countDuplicates, newMemory, type Prepared, type RememberResult } from './remember.js';
import { type MemoryWriter, writeDeps } from './writer.js';

// Conflict detection for `rememberMany`: the same rule as `remember` (conflict.ts), applied to each
// checked item of a batch against the scope's stored memories and against the batch's earlier
// items, so a batch gives what remembering its items one by one would give.

/** What a checked item merges into: a stored memory, or an earlier item of the same batch. */
type Target =
  | { readonly kind: 'stored'; readonly id: string; readonly contentHash: string; readonly cosine: number }
  | { readonly kind: 'batch'; readonly item: Prepared; readonly cosine: number };

/**
 * The earlier batch item `item` restates or updates, judged like a stored memory: same agent and
 * kind, not pinned, not already expired, cosine at the embedder's threshold, same subjects and links.
 */
function batchTarget(
  writer: MemoryWriter,
  earlier: readonly Prepared[],
  item: Prepared,
  vectorOf: ReadonlyMap<Prepared, Float32Array>,
  now: number,
): Target | undefined {
  const vector = vectorOf.get(item);
  const threshold = writer.embedder?.conflictThreshold ?? writer.config.remember.conflict.threshold;
  if (!vector) return undefined;
  const incoming = { content: item.content, links: linksOf(item.input.linkedEntities ?? []) };
  let best: Target | undefined;
  for (const other of earlier) {
    const theirs = vectorOf.get(other);
    const { input } = other;
    if (!theirs || input.agentId !== item.input.agentId || input.type !== item.input.type || input.pinned) continue;
    if (input.expiresAt !== undefined && input.expiresAt <= now) continue;
    const similarity = cosine(vector, theirs);
    if (best && similarity <= best.cosine) continue;
    const existing = { content: other.content, links: linksOf(input.linkedEntities ?? []) };
    if (judgeConflict(existing, incoming, similarity, threshold).merge)
      best = { kind: 'batch', item: other, cosine: similarity };
  }
  return best;
}

/**
 * For each checked item with a vector, what it may merge into, best first (by cosine): its best
 * stored match and its best match among the batch's earlier items. Reads only; the nearest searches
 * run outside any transaction. Both are kept: a stored match an earlier item of the batch merged
 * into no longer holds what was judged, and then the earlier item (what it holds now) is the one
 * to judge against, as remembering the items one by one would.
 */
export async function planBatchConflicts(
  writer: MemoryWriter,
  items: readonly Prepared[],
  vectorOf: ReadonlyMap<Prepared, Float32Array>,
): Promise<Map<Prepared, Target[]>> {
  const targets = new Map<Prepared, Target[]>();
  const now = writer.store.clock.now();
  for (const [i, item] of items.entries()) {
    const vector = vectorOf.get(item);
    if (!vector || !conflictApplies(writer, item.input)) continue;
    const found = await findConflict(writer, item, vector);
    const stored: Target | undefined = found
      ? { kind: 'stored', id: found.row.id, contentHash: found.row.content_hash, cosine: found.cosine }
      : undefined;
    const inBatch = batchTarget(writer, items.slice(0, i), item, vectorOf, now);
    const ranked = [stored, inBatch].filter((t): t is Target => t !== undefined).sort((x, y) => y.cosine - x.cosine);
    if (ranked.length > 0) targets.set(item, ranked);
  }
  return targets;
}

/**
 * Writes a batch in input order in one transaction: plain items through `createMemories` (in runs,
 * deduplicated as usual), checked items merged into their first target that still holds what was
 * judged; an item none of whose targets does is stored as a new memory.
 */
export function commitWithConflicts(
  writer: MemoryWriter,
  items: readonly Prepared[],
  embeddingOf: (item: Prepared) => MemoryVector | undefined,
  targets: ReadonlyMap<Prepared, readonly Target[]>,
): RememberResult[] {
  const { store } = writer;
  return store.write((sql) => {
    const now = store.clock.now();
    const results: RememberResult[] = [];
    // The memory each written item ended up in (created, deduplicated into, or merged into).
    const idOf = new Map<Prepared, string>();
    let run: number[] = [];
    const flush = (): void => {
      if (run.length === 0) return;
      const written = createMemories(
        sql,
        writeDeps(writer),
        run.map((i) => newMemory(writer, items[i] as Prepared, embeddingOf(items[i] as Prepared))),
        now,
      );
      written.forEach((result, k) => {
        const i = run[k] as number;
        results[i] = result;
        idOf.set(items[i] as Prepared, result.id);
      });
      countDuplicates(
        sql,
        run.map((i) => items[i] as Prepared),
        written,
        now,
      );
      run = [];
    };
    for (const [i, item] of items.entries()) {
      const choices = targets.get(item);
      const embedding = embeddingOf(item);
      if (!choices || !embedding) {
        run.push(i);
        continue;
      }
      flush();
      let merged: RememberResult | undefined;
      for (const target of choices) {
        const id = target.kind === 'stored' ? target.id : idOf.get(target.item);
        const contentHash = target.kind === 'stored' ? target.contentHash : target.item.hash;
        merged =
          id === undefined
            ? undefined
            : mergeConflict(sql, writer, item, { id, contentHash }, embedding, target.cosine);
        if (merged) break;
      }
      if (merged) {
        results[i] = merged;
        idOf.set(item, merged.id);
      } else run.push(i);
    }
    flush();
    return results;
  });
}
