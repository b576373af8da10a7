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

const MIN_ENTRIES = 8;
const MIN_SLOTS = 16;
/**
 * Tables double once more than this fraction of their slots is taken. Doubling places every entry
 * again (~40 ms a table at 786k entries on this machine, idle): the by-seq table doubles sooner than
 * the by-key one, so no single call pays for both.
 */
const KEY_LOAD = 0.75;
const SEQ_LOAD = 0.6;
const TWO_32 = 4_294_967_296;

/** Fibonacci hashing: the top `bits` bits of `x` times 2^32 / φ (sequential seqs spread evenly). */
const slotOf = (x: number, bits: number): number => Math.imul(x, 0x9e3779b1) >>> (32 - bits);

/** A 32-bit mix of a seq (any non-negative safe integer: PostgreSQL's are bigint). */
const seqBits = (seq: number): number => (seq >>> 0) ^ Math.imul(Math.floor(seq / TWO_32), 0x85ebca6b);

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
  /** log2 of each table's length. */
  #seqBits = Math.log2(MIN_SLOTS);
  #keyBits = Math.log2(MIN_SLOTS);
  #bySeq = new Int32Array(MIN_SLOTS);
  #byKey = new Int32Array(MIN_SLOTS);

  /** How many seqs have a key. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held by the arrays (for benchmarks and tests of the footprint). */
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
    const mask = this.#byKey.length - 1;
    for (let slot = slotOf(key, this.#keyBits); ; slot = (slot + 1) & mask) {
      const at = this.#byKey[slot] as number;
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
      if (this.#keys[entry] === k) return;
      this.#unlink(this.#byKey, this.#slotIn(this.#byKey, this.#keyHome(entry), entry), (e) => this.#keyHome(e));
      this.#keys[entry] = k;
      this.#link(this.#byKey, this.#keyHome(entry), entry);
      return;
    }
    const wide = this.#seqs instanceof Float64Array;
    if (!wide && seq !== seq >>> 0) this.#resizeEntries(this.#seqs.length, true);
    if (this.#size === this.#seqs.length) this.#resizeEntries(this.#size * 2, this.#seqs instanceof Float64Array);
    if (this.#size + 1 > this.#bySeq.length * SEQ_LOAD) this.#bySeq = this.#placed(++this.#seqBits, this.#seqs, true);
    if (this.#size + 1 > this.#byKey.length * KEY_LOAD) this.#byKey = this.#placed(++this.#keyBits, this.#keys, false);
    const added = this.#size++;
    this.#seqs[added] = seq;
    this.#keys[added] = k;
    this.#link(this.#bySeq, this.#seqHome(added), added);
    this.#link(this.#byKey, this.#keyHome(added), added);
  }

  /** Takes `seq`'s key away; returns whether it had one. */
  delete(seq: number): boolean {
    const entry = this.#entryOf(seq);
    if (entry < 0) return false;
    this.#unlink(this.#bySeq, this.#slotIn(this.#bySeq, this.#seqHome(entry), entry), (e) => this.#seqHome(e));
    this.#unlink(this.#byKey, this.#slotIn(this.#byKey, this.#keyHome(entry), entry), (e) => this.#keyHome(e));
    const last = --this.#size;
    if (entry !== last) {
      // The last entry moves into the hole: its two slots are renumbered.
      this.#seqs[entry] = this.#seqs[last] as number;
      this.#keys[entry] = this.#keys[last] as number;
      this.#bySeq[this.#slotIn(this.#bySeq, this.#seqHome(entry), last)] = entry + 1;
      this.#byKey[this.#slotIn(this.#byKey, this.#keyHome(entry), last)] = entry + 1;
    }
    return true;
  }

  #seqHome(entry: number): number {
    return slotOf(seqBits(this.#seqs[entry] as number), this.#seqBits);
  }

  #keyHome(entry: number): number {
    return slotOf(this.#keys[entry] as number, this.#keyBits);
  }

  /** The entry holding `seq`, or -1. */
  #entryOf(seq: number): number {
    const mask = this.#bySeq.length - 1;
    for (let slot = slotOf(seqBits(seq), this.#seqBits); ; slot = (slot + 1) & mask) {
      const at = this.#bySeq[slot] as number;
      if (at === 0) return -1;
      if (this.#seqs[at - 1] === seq) return at - 1;
    }
  }

  /** The slot of `table` that holds `entry` (it is there), probing from `home`. */
  #slotIn(table: Int32Array, home: number, entry: number): number {
    const mask = table.length - 1;
    let slot = home;
    while (table[slot] !== entry + 1) slot = (slot + 1) & mask;
    return slot;
  }

  /** Puts `entry` in the first free slot from `home`. */
  #link(table: Int32Array, home: number, entry: number): void {
    const mask = table.length - 1;
    let slot = home;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = entry + 1;
  }

  /**
   * Empties `slot` and moves back each later slot of its probe run whose home is not between the
   * hole and it (cyclically), so every entry stays reachable from its home without a gap.
   */
  #unlink(table: Int32Array, slot: number, homeOf: (entry: number) => number): void {
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

  /** Copies the entries into arrays of `length`, seqs as 64-bit floats when `wide`. */
  #resizeEntries(length: number, wide: boolean): void {
    const seqs = wide ? new Float64Array(length) : new Uint32Array(length);
    seqs.set(this.#seqs);
    this.#seqs = seqs;
    const keys = new Uint32Array(length);
    keys.set(this.#keys);
    this.#keys = keys;
  }

  /**
   * A table of `2^bits` slots with every entry placed by `values` (its seqs, mixed, or its keys).
   * One tight loop: it runs over every entry at once (the only step here that grows with the size).
   */
  #placed(bits: number, values: Uint32Array | Float64Array, mixed: boolean): Int32Array<ArrayBuffer> {
    const table = new Int32Array(1 << bits);
    const mask = table.length - 1;
    for (let entry = 0; entry < this.#size; entry++) {
      const value = values[entry] as number;
      let slot = slotOf(mixed ? seqBits(value) : value, bits);
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = entry + 1;
    }
    return table;
  }
}
