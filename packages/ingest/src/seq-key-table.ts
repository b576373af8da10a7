// The storage of conflict-keys.ts: for each memory (by its integer seq) the uint32 hash of its
// conflict key, found by seq or by key. Held in typed arrays, with no JS object per memory: two Maps
// of id strings cost 103–115 bytes of heap per memory (98 MB at 1M memories in one agent), all of it
// marked by every major GC; typed arrays' contents are never scanned (bench:conflict-keys-heap).
//
// Entries are packed at the front of two parallel arrays (seq, key; removing one moves the last
// into its place; seqs in 32 bits until one needs more, as PostgreSQL's bigint seqs may), and two
// open-addressing tables with linear probing hold entry numbers plus one (0: empty), one placed by
// seq and one by key, so either side is found in a few probes. A key's entries all lie between its
// home slot and the next empty one, so its seqs are read by walking that run. Deleting from a table
// shifts the rest of the run back (no tombstones, so lookups never slow down with use).
// Per entry: 8 bytes of arrays (12 with wide seqs), and 4 bytes per slot of each table (by key at
// a load of 3/8 to 3/4, by seq at 0.3 to 0.6).
//
// A table grows without a long call: once it passes its load it starts a table of twice the slots
// and each later `set` places the next few entries there (GROWTH_STEP per table), while the old
// table, which still holds every entry, answers; changes to entries already placed go to both.
// Placing every entry at once took 38–75 ms per doubling in a 1M-memory bulk load (393k, 629k and
// 786k entries): three of the load's four event-loop slices over 50 ms.

const MIN_ENTRIES = 8;
const MIN_SLOTS = 16;
/**
 * A table starts growing once more than this fraction of its slots is taken (by key: 0.75, by seq:
 * 0.6). Growth then places {@link GROWTH_STEP} entries per `set`, so it ends within 1/31 of the
 * size it started at (by key at a load under 0.78).
 */
const KEY_LOAD = 0.75;
const SEQ_LOAD = 0.6;
/** Entries each table's growth places per `set` (a few µs). */
export const GROWTH_STEP = 32;
/** A table this full finishes its growth at once (only small growth steps get here: by key, 5 or fewer). */
const FULL_LOAD = 0.9;
const TWO_32 = 4_294_967_296;

/** Fibonacci hashing: the top `bits` bits of `x` times 2^32 / φ (sequential seqs spread evenly). */
const slotOf = (x: number, bits: number): number => Math.imul(x, 0x9e3779b1) >>> (32 - bits);

/** A 32-bit mix of a seq (any non-negative safe integer: PostgreSQL's are bigint). */
const seqBits = (seq: number): number => (seq >>> 0) ^ Math.imul(Math.floor(seq / TWO_32), 0x85ebca6b);

/** The slot of `table` that holds `entry` (it is there), probing from `home`. */
function slotIn(table: Int32Array, home: number, entry: number): number {
  const mask = table.length - 1;
  let slot = home;
  while (table[slot] !== entry + 1) slot = (slot + 1) & mask;
  return slot;
}

/** Puts `entry` in the first free slot of `table` from `home`. */
function link(table: Int32Array, home: number, entry: number): void {
  const mask = table.length - 1;
  let slot = home;
  while (table[slot] !== 0) slot = (slot + 1) & mask;
  table[slot] = entry + 1;
}

/**
 * Throws unless `table` holds each of entries 0 to `count` − 1 once, each reachable from its home
 * (no empty slot between the two), and nothing else.
 */
function checkSlots(table: Int32Array, count: number, homeOf: (entry: number) => number): void {
  const mask = table.length - 1;
  let held = 0;
  for (let slot = 0; slot < table.length; slot++) {
    const at = table[slot] as number;
    if (at === 0) continue;
    held++;
    if (at > count) throw new Error(`slot ${slot} holds entry ${at - 1} of ${count}`);
    for (let s = homeOf(at - 1); s !== slot; s = (s + 1) & mask)
      if (table[s] === 0) throw new Error(`entry ${at - 1} is cut off from its home ${homeOf(at - 1)}`);
  }
  if (held !== count) throw new Error(`${held} slots taken for ${count} entries`);
}

/**
 * Empties `slot` and moves back each later slot of its probe run whose home is not between the
 * hole and it (cyclically), so every entry stays reachable from its home without a gap.
 */
function unlink(table: Int32Array, slot: number, homeOf: (entry: number) => number): void {
  const mask = table.length - 1;
  let hole = slot;
  for (let next = (hole + 1) & mask; table[next] !== 0; next = (next + 1) & mask) {
    const home = homeOf((table[next] as number) - 1);
    // Stays when its home lies in (hole, next]: moving it before its home would hide it.
    const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
    if (stays) continue;
    table[hole] = table[next] as number;
    hole = next;
  }
  table[hole] = 0;
}

/** A growing table's next one: `2^bits` slots, holding the first `placed` entries. */
interface NextSlots {
  readonly bits: number;
  readonly table: Int32Array<ArrayBuffer>;
  placed: number;
}

/**
 * One open-addressing table of entry numbers plus one (0: empty), placed by `home(entry, bits)`,
 * and while it grows, the table of twice its slots that the first `placed` entries are already in.
 */
class EntrySlots {
  /** log2 of the table's length. */
  bits = Math.log2(MIN_SLOTS);
  table = new Int32Array(MIN_SLOTS);
  #next: NextSlots | undefined;

  constructor(
    private readonly home: (entry: number, bits: number) => number,
    private readonly load: number,
    private readonly step: number,
  ) {}

  get byteLength(): number {
    return this.table.byteLength + (this.#next?.table.byteLength ?? 0);
  }

  /** Before entry `size` is added: starts or goes on growing. */
  reserve(size: number): void {
    if (!this.#next && size + 1 > this.table.length * this.load)
      this.#next = { bits: this.bits + 1, table: new Int32Array(this.table.length * 2), placed: 0 };
    if (this.#next) this.#grow(size, size + 1 > this.table.length * FULL_LOAD ? size : this.step);
  }

  /** Entry `entry` (the last) was added. Growth places it when it gets there. */
  add(entry: number): void {
    link(this.table, this.home(entry, this.bits), entry);
  }

  /** Entry `entry` goes (its value still in place, to find it by); `size` counts it. */
  remove(entry: number): void {
    unlink(this.table, slotIn(this.table, this.home(entry, this.bits), entry), (e) => this.home(e, this.bits));
    const next = this.#next;
    if (next && entry < next.placed)
      unlink(next.table, slotIn(next.table, this.home(entry, next.bits), entry), (e) => this.home(e, next.bits));
  }

  /** Entry `entry`'s value changes: `change` makes the change between its removal and its return. */
  replace(entry: number, change: () => void): void {
    this.remove(entry);
    change();
    this.add(entry);
    const next = this.#next;
    if (next && entry < next.placed) link(next.table, this.home(entry, next.bits), entry);
  }

  /**
   * The last entry, `from`, now has the number `to` (removed before). It is never in the next table
   * yet: growth ends as soon as it has placed the last entry (see `shrank`).
   */
  moved(from: number, to: number): void {
    this.table[slotIn(this.table, this.home(to, this.bits), from)] = to + 1;
    const next = this.#next;
    if (next && to < next.placed) link(next.table, this.home(to, next.bits), to);
  }

  /** An entry went and `size` remain: a growth that has now placed them all ends. */
  shrank(size: number): void {
    this.#grow(size, 0);
  }

  /** Throws unless the table holds entries 0 to size − 1 and a next one the first `placed`, fewer than all. */
  check(size: number): void {
    checkSlots(this.table, size, (e) => this.home(e, this.bits));
    const next = this.#next;
    if (!next) return;
    if (next.placed >= size) throw new Error(`a growth placed all ${size} entries and did not end`);
    checkSlots(next.table, next.placed, (e) => this.home(e, next.bits));
  }

  /** Places up to `count` more of the `size` entries in the next table; swaps it in once all are. */
  #grow(size: number, count: number): void {
    const next = this.#next;
    if (!next) return;
    const end = Math.min(size, next.placed + count);
    for (let entry = next.placed; entry < end; entry++) link(next.table, this.home(entry, next.bits), entry);
    next.placed = end;
    if (end < size) return;
    this.table = next.table;
    this.bits = next.bits;
    this.#next = undefined;
  }
}

/**
 * A set of (seq, key) pairs with at most one key per seq, found by either side: `set(seq, key)`
 * gives `seq` the key (replacing the one it had), `seqsOf(key)` lists the seqs with that key.
 *
 * @example
 * const table = new SeqKeyTable();
 * table.set(7, 0xdeadbeef);
 * table.seqsOf(0xdeadbeef); // [7]
 */
export class SeqKeyTable {
  /** Widened to 64-bit floats by the first seq that is not a uint32. */
  #seqs: Uint32Array | Float64Array = new Uint32Array(MIN_ENTRIES);
  #keys = new Uint32Array(MIN_ENTRIES);
  #size = 0;
  readonly #bySeq: EntrySlots;
  readonly #byKey: EntrySlots;

  /** `growthStep`: entries each growing table places per `set` (tests take fewer, to watch growth). */
  constructor(options: { readonly growthStep?: number } = {}) {
    const step = options.growthStep ?? GROWTH_STEP;
    this.#bySeq = new EntrySlots((entry, bits) => slotOf(seqBits(this.#seqs[entry] as number), bits), SEQ_LOAD, step);
    this.#byKey = new EntrySlots((entry, bits) => slotOf(this.#keys[entry] as number, bits), KEY_LOAD, step);
  }

  /** How many seqs have a key. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held by the arrays, a growing table's next one too (for benchmarks and tests of the footprint). */
  get byteLength(): number {
    return this.#seqs.byteLength + this.#keys.byteLength + this.#bySeq.byteLength + this.#byKey.byteLength;
  }

  /** The key of `seq`, or undefined when it has none. */
  keyOf(seq: number): number | undefined {
    const entry = this.#entryOf(seq);
    return entry < 0 ? undefined : this.#keys[entry];
  }

  /** The seqs whose key is `key`, ascending (a new array). */
  seqsOf(key: number): number[] {
    const seqs: number[] = [];
    const { table, bits } = this.#byKey;
    const mask = table.length - 1;
    for (let slot = slotOf(key, bits); ; slot = (slot + 1) & mask) {
      const at = table[slot] as number;
      if (at === 0) break;
      if (this.#keys[at - 1] === key) seqs.push(this.#seqs[at - 1] as number);
    }
    return seqs.length > 1 ? seqs.sort((a, b) => a - b) : seqs;
  }

  /** Gives `seq` the key `key` (a uint32), replacing the one it had. */
  set(seq: number, key: number): void {
    const k = key >>> 0;
    const entry = this.#entryOf(seq);
    if (entry >= 0) {
      if (this.#keys[entry] !== k)
        this.#byKey.replace(entry, () => {
          this.#keys[entry] = k;
        });
      return;
    }
    const wide = this.#seqs instanceof Float64Array;
    if (!wide && seq !== seq >>> 0) this.#resizeEntries(this.#seqs.length, true);
    if (this.#size === this.#seqs.length) this.#resizeEntries(this.#size * 2, this.#seqs instanceof Float64Array);
    this.#bySeq.reserve(this.#size);
    this.#byKey.reserve(this.#size);
    const added = this.#size++;
    this.#seqs[added] = seq;
    this.#keys[added] = k;
    this.#bySeq.add(added);
    this.#byKey.add(added);
  }

  /** Takes `seq`'s key away; returns whether it had one. */
  delete(seq: number): boolean {
    const entry = this.#entryOf(seq);
    if (entry < 0) return false;
    this.#bySeq.remove(entry);
    this.#byKey.remove(entry);
    const last = --this.#size;
    if (entry !== last) {
      // The last entry moves into the hole: its slots are renumbered.
      this.#seqs[entry] = this.#seqs[last] as number;
      this.#keys[entry] = this.#keys[last] as number;
      this.#bySeq.moved(last, entry);
      this.#byKey.moved(last, entry);
    }
    this.#bySeq.shrank(this.#size);
    this.#byKey.shrank(this.#size);
    return true;
  }

  /**
   * Throws unless both tables (and a growing one's next) hold exactly the entries they should, each
   * found from its home: for property tests, O(slots).
   */
  checkIntegrity(): void {
    this.#bySeq.check(this.#size);
    this.#byKey.check(this.#size);
  }

  /** The entry holding `seq`, or -1. */
  #entryOf(seq: number): number {
    const { table, bits } = this.#bySeq;
    const mask = table.length - 1;
    for (let slot = slotOf(seqBits(seq), bits); ; slot = (slot + 1) & mask) {
      const at = table[slot] as number;
      if (at === 0) return -1;
      if (this.#seqs[at - 1] === seq) return at - 1;
    }
  }

  /** Copies the entries into arrays of `length`, seqs as 64-bit floats when `wide`. */
  #resizeEntries(length: number, wide: boolean): void {
    const seqs = wide ? new Float64Array(length) : new Uint32Array(length);
    seqs.set(this.#seqs);
    this.#seqs = seqs;
    const keys = new Uint32Array(length);
    keys.set(this.#keys);
    this.#keys = keys;
  }
}
