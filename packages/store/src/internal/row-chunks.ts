// Many rows go into a table in multi-row statements: as many statements of `largest` rows as fit,
// then one each for the binary digits of the rest (8, 4, 2, 1 below 16). A write of any size then
// uses at most log2(largest) + 1 distinct statement texts, so prepared statements are reused (the
// executor caches them by text), and a single row still takes one statement. Bound parameters stay
// far under SQLite's limit (32,766) and PostgreSQL's (65,535) for the row widths used here.

/** The row count of each statement that writes `total` rows, largest first. `largest`: a power of two. */
export function chunkSizes(total: number, largest = 16): number[] {
  const sizes: number[] = [];
  let rest = total;
  for (; rest >= largest; rest -= largest) sizes.push(largest);
  for (let n = largest >> 1; n >= 1; n >>= 1) {
    if (rest >= n) {
      sizes.push(n);
      rest -= n;
    }
  }
  return sizes;
}

/** `n` copies of a VALUES tuple such as `(?, ?, ?)`, comma-separated. */
export function valueRows(n: number, tuple: string): string {
  return Array(n).fill(tuple).join(', ');
}

/**
 * The statement (text, or texts per dialect) for each chunk size up to `largest`, built once by
 * `build` on first use.
 */
export function statementsBySize<T>(build: (n: number) => T): (n: number) => T {
  const built = new Map<number, T>();
  return (n) => {
    let statement = built.get(n);
    if (statement === undefined) {
      statement = build(n);
      built.set(n, statement);
    }
    return statement;
  };
}
