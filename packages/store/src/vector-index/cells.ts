// How the vec0 table is keyed. Partition keys are (agent_id, cell): a cell is one list of one
// generation of one agent's partition, so a KNN that names both keys visits only that list's
// chunks. Rowids carry the generation too, so a rebuild can write a new generation of the same
// vectors beside the one that answers queries. Both are bound as BigInt: vec0 rejects integer
// keys bound as JavaScript numbers (better-sqlite3 binds those as REAL).

const LIST_BITS = 20n;
const SEQ_BITS = 40n;

/** The list of new, not yet assigned vectors in an ivf generation, and the only list of an exact one. */
export const FRESH_LIST = 0;

/** Most lists one generation can have (cells reserve 20 bits for the list). */
export const MAX_LISTS = 2 ** 20 - 2;

/** The vec0 partition key of a list in a generation. */
export function cellOf(generation: number, list: number): bigint {
  return (BigInt(generation) << LIST_BITS) | BigInt(list);
}

/** The vec0 rowid of a canonical vector (`embeddings.seq`) in a generation. */
export function rowidOf(generation: number, seq: number): bigint {
  return (BigInt(generation) << SEQ_BITS) | BigInt(seq);
}

/** The `embeddings.seq` behind a vec0 rowid. */
export function seqOfRowid(rowid: number | bigint): number {
  return Number(BigInt(rowid) & ((1n << SEQ_BITS) - 1n));
}

/** vec0 chunk size: small, since every partition (each agent, each list) holds at least one chunk. */
export const CHUNK_SIZE = 128;
