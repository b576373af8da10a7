import { yieldToEventLoop } from '@memory/core';
import {
  type ConflictSourceRow,
  conflictHeadsAfter,
  conflictSourcesAfter,
  conflictSourcesAfterProgram,
  conflictSourcesOf,
  conflictSourcesOfProgram,
  dataVersion,
  historyMark,
  isSqliteStore,
  type MemoriesTop,
  memoryChangesBetween,
  type PortableStore,
  runWriterProgram,
  type Store,
  scopeHistorySinceProgram,
} from '@memory/store';
import { conflictKey } from './conflict-rule.js';
import { parseJsonColumn } from './memory-view.js';
import { SeqKeyTable } from './seq-key-table.js';

// Which stored memories an input may update, found by the conflict rule's key (conflict-rule.ts)
// instead of a nearest-neighbour search per input: the rule merges only texts with equal keys, so
// the memories sharing an input's key are every memory it can update. A search per input compared
// the whole scope's vectors (O(n) each: 100k durable memories through rememberMany took 453 s);
// a key lookup is O(1), and the few memories it finds are judged exactly as before.
//
// The index lives in memory, per engine and scope, built on first use in bounded pages and kept
// current three ways: rows written since (by any path) are read by seq (their text only when it is
// not what this engine noted it wrote; the rows a rememberMany batch created are taken from the
// batch without a read when the `memories` top row shows they are the only new rows: `settle`);
// content replaced or recovered on this connection is reported by the writer's `onContentLive`
// hook; a commit by
// another connection (another process) changes SQLite's data_version, and the memories it changed
// in place are read from `memory_history` (every change the memory writer makes writes a row there),
// so engines sharing a file catch up by what changed instead of rebuilding (a rebuild judges every
// memory of the scope again: seconds at 100k). Only a long backlog, or history seqs that went
// backwards (rows purged), drop the index. It holds hashes, so two keys may share an entry: whatever
// it returns is judged again from the row itself.
//
// Memories are held by their seq, not their id, in typed arrays (seq-key-table.ts: 25–32 bytes each
// outside the JS heap and no JS object per memory, where two Maps of id strings took 103–115 bytes
// of heap, all marked by every major GC). A lookup returns seqs; the caller reads the candidates' rows by them.
// Ids name memories only on their way in (the writer's hook, what this engine wrote) until the
// refresh reads their rows.
//
// On PostgreSQL there is no `data_version`, and other engines are the rule rather than the exception:
// each scope keeps its own history mark, and every refresh reads the scope's history rows past it
// (holding the scope's lock keys, so no writer of the scope is in flight: rows below the new mark
// cannot commit later) and reads those memories again. Rows the scope gained are read by seq as on
// SQLite: a scope's writers take turns under its lock keys, so its seqs commit in order.

const PAGE_ROWS = 2000;
/** Scopes kept; the least recently used is dropped (and rebuilt on its next write). */
const MAX_SCOPES = 32;
/** History rows another connection may have written that are read to catch up; more drop the index. */
const MAX_CATCH_UP = 10_000;

/** A memory a write inserted, for {@link ConflictKeyIndex.settle}. */
export interface CreatedKey {
  readonly agentId: string;
  readonly id: string;
  readonly hash: number | undefined;
}

interface ScopeKeys {
  /** Highest memory seq read. */
  seq: number;
  /** PostgreSQL: the highest `memory_history` seq accounted for in this scope. */
  historySeq: number;
  /** The key hash of each indexed memory, by its seq. */
  readonly keys: SeqKeyTable;
}

const isLinkArray = (v: unknown): v is Array<{ type?: unknown; refId?: unknown }> => Array.isArray(v);

/** The host links of a memory or input as the rule compares them (`type:refId`). */
export const linksOf = (items: ReadonlyArray<{ type?: unknown; refId?: unknown }>): string[] =>
  items.map((l) => `${String(l.type)}:${String(l.refId)}`);

/** The links of a stored row's `linked_entities` column. */
export const rowLinks = (column: string): string[] => linksOf(parseJsonColumn(column, [], isLinkArray));

/** FNV-1a over the kind and the rule's key; undefined when the text has no key (never merges). */
export function keyHash(type: string, content: string, links: readonly string[]): number | undefined {
  const key = conflictKey(content, links);
  if (key === undefined) return undefined;
  const text = `${type}\u0000${key}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Per-engine index of the conflict keys of each scope's stored memories of the checked kinds. */
export class ConflictKeyIndex {
  readonly #scopes = new Map<string, ScopeKeys>();
  /** Memories whose content became live in place (replaced, recovered), per scope, not read yet. */
  readonly #touched = new Map<string, Set<string>>();
  /** Keys of rows this engine just wrote, so reading them back does not judge their text again. */
  readonly #written = new Map<string, { contentHash: string; hash: number | undefined }>();
  #version: number | undefined;
  /** The highest `memory_history` seq accounted for. */
  #historySeq = 0;
  /** Bumped whenever another connection's commit was noticed (caught up or dropped). */
  #changes = 0;
  /**
   * The `memories` row with the highest seq when the last SQLite refresh read its scope's rows
   * (undefined after a paged read): that scope is complete through it (see {@link settle}).
   */
  #top: { readonly agentId: string; readonly row: MemoriesTop } | undefined;
  /** Scopes a {@link refreshAll} in progress needs (never dropped to make room). */
  readonly #inUse = new Set<string>();

  /** The writer's `onContentLive`: this memory's content changed (or came back) on this connection. */
  touch(agentId: string, id: string): void {
    // What was noted of it is out of date (a write of this engine notes its content after this).
    this.#written.delete(id);
    if (!this.#scopes.has(agentId)) return;
    const ids = this.#touched.get(agentId) ?? new Set<string>();
    ids.add(id);
    this.#touched.set(agentId, ids);
  }

  /**
   * Records the key of content just committed by this engine (of a checked kind; `hash` from
   * {@link keyHash}), so the index takes it without reading and judging the text again.
   */
  noteWritten(id: string, contentHash: string, hash: number | undefined): void {
    this.#written.set(id, { contentHash, hash });
  }

  /**
   * Brings the scope's index up to date (building it on first use, in pages with the event loop
   * free between them). Call before {@link candidates}; nothing may be awaited in between.
   */
  async refresh(store: PortableStore, agentId: string, types: readonly string[]): Promise<void> {
    if (isSqliteStore(store)) return this.#refreshSqlite(store, agentId, types, false);
    return this.#refreshShared(store, agentId, types);
  }

  /** The scope's keys, made the most recently used (created empty on first use; LRU past {@link MAX_SCOPES}). */
  #use(agentId: string): ScopeKeys {
    let scope = this.#scopes.get(agentId);
    if (scope) this.#scopes.delete(agentId);
    else scope = { seq: 0, historySeq: -1, keys: new SeqKeyTable() };
    this.#scopes.set(agentId, scope);
    for (const other of this.#scopes.keys()) {
      if (this.#scopes.size <= MAX_SCOPES) break;
      if (this.#inUse.has(other)) continue;
      this.#scopes.delete(other);
      this.#touched.delete(other);
    }
    return scope;
  }

  /** `forBatch`: a rememberMany batch follows, which may {@link settle} (the top row is read too). */
  async #refreshSqlite(store: Store, agentId: string, types: readonly string[], forBatch: boolean): Promise<void> {
    for (;;) {
      const top = this.#catchUp(store, forBatch);
      const current = this.#use(agentId);
      let count: number;
      let paged = false;
      do {
        count = this.#readAfter(store, current, agentId, types);
        if (count === PAGE_ROWS) {
          paged = true;
          await yieldToEventLoop();
        }
      } while (count === PAGE_ROWS && store.read(dataVersion) === this.#version);
      // Another connection may have committed while the event loop was free (a race with any
      // commit it makes later is the same as for a vector search: the next write sees it).
      if (paged && store.read(dataVersion) !== this.#version) continue;
      // Unpaged, nothing ran on this connection between the mark and the read of the scope's rows.
      this.#top = paged || top === undefined ? undefined : { agentId, row: top };
      const touched = this.#touched.get(agentId);
      if (touched && touched.size > 0) {
        // Read by id for their seqs (a write that rolled back left nothing to find); the key of
        // content this engine wrote is taken as noted when the row still holds it (`#index`).
        const ids = [...touched];
        touched.clear();
        for (const row of store.read((sql) => conflictSourcesOf(sql, agentId, ids))) this.#take(current, row, types);
      }
      this.#written.clear();
      return;
    }
  }

  /**
   * Reads one page of the scope's rows past its seq; returns how many rows the page held. While this
   * engine's own writes are noted ({@link noteWritten}), the page is read without the text (seq, id,
   * kind, content hash) and only rows whose content is not the noted one are read in full: rows of
   * other paths (imports through the text trigger, other connections, a seq reused after a purge)
   * never match a noted id and content hash, and a write that rolled back left no row to read.
   */
  #readAfter(store: Store, current: ScopeKeys, agentId: string, types: readonly string[]): number {
    // A row read here is read as it is now: touched (created on this connection, say) or not, it
    // is not read again by id in the refresh.
    const touched = this.#touched.get(agentId);
    if (this.#written.size === 0) {
      const rows = store.read((sql) => conflictSourcesAfter(sql, agentId, current.seq, PAGE_ROWS));
      for (const row of rows) {
        this.#take(current, row, types);
        touched?.delete(row.id);
        current.seq = row.seq;
      }
      return rows.length;
    }
    const heads = store.read((sql) => conflictHeadsAfter(sql, agentId, current.seq, PAGE_ROWS));
    const unknown: string[] = [];
    for (const head of heads) {
      touched?.delete(head.id);
      current.seq = head.seq;
      if (!types.includes(head.type)) {
        this.#set(current, head.seq, undefined);
        continue;
      }
      const written = this.#written.get(head.id);
      if (written && written.contentHash === head.contentHash) this.#set(current, head.seq, written.hash);
      else unknown.push(head.id);
    }
    if (unknown.length > 0)
      for (const row of store.read((sql) => conflictSourcesOf(sql, agentId, unknown))) this.#take(current, row, types);
    return heads.length;
  }

  /** {@link refresh} on a store other engines share as a rule (PostgreSQL): see the module note. */
  async #refreshShared(store: PortableStore, agentId: string, types: readonly string[]): Promise<void> {
    this.#top = undefined;
    const current = this.#use(agentId);
    // A new scope only takes the mark: the rows it reads next already hold every change before it.
    const fresh = current.historySeq < 0;
    const since = await runWriterProgram(store, { agentIds: [agentId] }, () =>
      scopeHistorySinceProgram(agentId, fresh ? undefined : current.historySeq),
    );
    current.historySeq = since.mark;
    const reread = new Set(since.memoryIds);
    const touched = this.#touched.get(agentId);
    for (const id of touched ?? []) reread.add(id);
    touched?.clear();
    let rows: ConflictSourceRow[];
    do {
      const after = current.seq;
      rows = await store.db.read(() => conflictSourcesAfterProgram(agentId, after, PAGE_ROWS));
      for (const row of rows) {
        this.#take(current, row, types);
        current.seq = Math.max(current.seq, row.seq);
        reread.delete(row.id);
      }
      if (rows.length === PAGE_ROWS) await yieldToEventLoop();
    } while (rows.length === PAGE_ROWS);
    // Rows changed in place are read again; what this engine wrote is taken when the row still
    // holds it (`#index` compares content hashes), so its own changes are not judged twice.
    const ids = [...reread];
    for (let i = 0; i < ids.length; i += PAGE_ROWS) {
      const page = ids.slice(i, i + PAGE_ROWS);
      for (const row of await store.db.read(() => conflictSourcesOfProgram(agentId, page)))
        this.#take(current, row, types);
    }
    this.#written.clear();
  }

  /** {@link refresh} for several scopes, again until no other connection committed in between. */
  async refreshAll(store: PortableStore, agentIds: Iterable<string>, types: readonly string[]): Promise<void> {
    const scopes = [...new Set(agentIds)];
    for (const agentId of scopes) this.#inUse.add(agentId);
    try {
      for (;;) {
        const changes = this.#changes;
        for (const agentId of scopes)
          if (isSqliteStore(store)) await this.#refreshSqlite(store, agentId, types, true);
          else await this.#refreshShared(store, agentId, types);
        if (changes === this.#changes || scopes.length === 1) return;
      }
    } finally {
      for (const agentId of scopes) this.#inUse.delete(agentId);
    }
  }

  /**
   * Notes what other connections changed since the last look: history rows past the mark name the
   * memories to read again (rows they added are read by seq anyway). Without another connection's
   * commit, every history row since was this engine's own and is already reflected.
   */
  #catchUp(store: Store, withTop: boolean): MemoriesTop | undefined {
    const mark = store.read((sql) => historyMark(sql, withTop));
    if (this.#version === undefined || mark.version === this.#version) {
      this.#version = mark.version;
      this.#historySeq = mark.seq;
      return mark.top;
    }
    this.#changes++;
    const backlog = mark.seq - this.#historySeq;
    if (backlog < 0 || backlog > MAX_CATCH_UP) {
      this.#scopes.clear();
      this.#touched.clear();
    } else {
      for (const { agentId, memoryId } of store.read((sql) => memoryChangesBetween(sql, this.#historySeq, mark.seq))) {
        // Read again from its row: what this engine noted of it may be what the other one replaced.
        this.#written.delete(memoryId);
        if (!this.#scopes.has(agentId)) continue;
        const ids = this.#touched.get(agentId) ?? new Set<string>();
        ids.add(memoryId);
        this.#touched.set(agentId, ids);
      }
    }
    this.#version = mark.version;
    this.#historySeq = mark.seq;
    return mark.top;
  }

  /**
   * Takes the memories a write just committed into the scope's index without reading them back,
   * when that is exact: `before` and `after` are the `memories` top row read inside the write
   * transaction before and after its inserts, and `created` every memory it inserted (any agent, any
   * kind; `hash` from {@link keyHash}, undefined for a kind not checked or a text without a key).
   * SQLite gives each new row the highest seq plus one, so when the top is still the row the
   * scope's last refresh saw and the write added exactly `created.length` seqs, the rows past the
   * scope's seq are these and no others. `created` is in the order of the inserts (SQLite's writer
   * inserts one row per statement in its input's order), so the i-th took seq `before.seq + 1 + i`;
   * the last must be the top row `after`. Anything else (a refresh of another scope since, rows
   * another path or connection added, a purge that lowered the top, a write of several scopes)
   * returns false and changes nothing: the next refresh reads those rows. Call it only after the
   * write committed (a write that rolled back left no rows to take).
   */
  settle(agentId: string, before: MemoriesTop, after: MemoriesTop, created: ReadonlyArray<CreatedKey>): boolean {
    const top = this.#top;
    this.#top = undefined;
    const scope = this.#scopes.get(agentId);
    if (
      !scope ||
      top === undefined ||
      top.agentId !== agentId ||
      top.row.seq !== before.seq ||
      top.row.id !== before.id ||
      after.seq - before.seq !== created.length ||
      created[created.length - 1]?.id !== after.id ||
      created.some((memory) => memory.agentId !== agentId)
    )
      return false;
    const touched = this.#touched.get(agentId);
    for (const [i, memory] of created.entries()) {
      this.#set(scope, before.seq + 1 + i, memory.hash);
      touched?.delete(memory.id);
      this.#written.delete(memory.id);
    }
    scope.seq = after.seq;
    return true;
  }

  /**
   * Memories purged on this connection (their rows deleted). SQLite gives a new row the highest seq
   * plus one, so once a scope's top rows are gone a row inserted later (by any path) may take a seq
   * at or below the one the scope's index has read to, which the catch-up (rows past that seq)
   * would never read: the scope's seq goes back below the lowest purged one, and the next refresh
   * reads the rows past it again (those it knows are taken as they are). The purged seqs leave the
   * index (a row that takes one later is read as new).
   */
  purged(memories: Iterable<{ readonly agentId: string; readonly seq: number }>): void {
    for (const { agentId, seq } of memories) {
      const scope = this.#scopes.get(agentId);
      if (!scope) continue;
      scope.keys.delete(seq);
      if (seq <= scope.seq) scope.seq = seq - 1;
    }
    this.#top = undefined;
  }

  /**
   * Forgets a scope (its rows were erased): the next refresh builds it again from its rows, which
   * an erased scope no longer has. Kept, its seq would hide rows inserted later at reused seqs, as
   * after a purge (see {@link purged}).
   */
  dropScope(agentId: string): void {
    this.#scopes.delete(agentId);
    this.#touched.delete(agentId);
    if (this.#top?.agentId === agentId) this.#top = undefined;
  }

  /**
   * The seqs of the scope's memories that may share this key, ascending (judge each from its row:
   * read it by seq).
   */
  candidates(agentId: string, hash: number): readonly number[] {
    return this.#scopes.get(agentId)?.keys.seqsOf(hash) ?? [];
  }

  /** Indexes a row read of the scope: its key when of a checked kind, none otherwise. */
  #take(scope: ScopeKeys, row: ConflictSourceRow, types: readonly string[]): void {
    if (types.includes(row.type)) this.#index(scope, row);
    else this.#set(scope, row.seq, undefined);
  }

  #index(scope: ScopeKeys, row: ConflictSourceRow): void {
    const written = this.#written.get(row.id);
    this.#set(
      scope,
      row.seq,
      written && written.contentHash === row.contentHash
        ? written.hash
        : keyHash(row.type, row.content, rowLinks(row.linkedEntities)),
    );
  }

  #set(scope: ScopeKeys, seq: number, hash: number | undefined): void {
    if (hash === undefined) scope.keys.delete(seq);
    else scope.keys.set(seq, hash);
  }
}
