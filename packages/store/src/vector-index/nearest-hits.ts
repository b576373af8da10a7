/** A vector a KNN found: its seq (`embeddings.seq`) and its distance to the query. */
export interface SeqHit {
  readonly seq: number;
  readonly distance: number;
}

/**
 * The `k` nearest hits of a search over several KNN calls, by distance then seq, a vector seen
 * twice (slices may read different snapshots) counted once. Once `k` are held, the k-th distance
 * bounds the next KNN: a vector farther than it cannot enter, and vec0 skips the top-k selection of
 * vectors a distance constraint excludes, which is most of the cost of a far list at k = 100.
 */
export class NearestHits {
  private top: SeqHit[] = [];

  constructor(private readonly k: number) {}

  /** The distance a hit must not exceed to enter, or undefined while fewer than `k` are held. */
  bound(): number | undefined {
    return this.top.length >= this.k ? (this.top[this.k - 1] as SeqHit).distance : undefined;
  }

  /** Merges a KNN's hits. */
  add(hits: readonly SeqHit[]): void {
    if (hits.length === 0) return;
    const all = this.top.concat(hits).sort((a, b) => a.distance - b.distance || a.seq - b.seq);
    const seen = new Set<number>();
    const top: SeqHit[] = [];
    for (const hit of all) {
      if (top.length >= this.k) break;
      if (seen.has(hit.seq)) continue;
      seen.add(hit.seq);
      top.push(hit);
    }
    this.top = top;
  }

  /** The nearest hits, nearest first. */
  hits(): SeqHit[] {
    return this.top.slice();
  }
}
