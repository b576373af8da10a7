import { afterAll, describe, expect, it } from 'vitest';
import { closeSharedPglite, sharedPglite } from './support/pglite.js';

describe('PGlite test support', () => {
  afterAll(closeSharedPglite);

  it('opens PGlite with a working pgvector: cosine distance between vectors', async () => {
    const db = await sharedPglite();
    const { rows } = await db.query<{ distance: number }>(`select '[1,2,3]'::vector <=> '[1,2,4]'::vector as distance`);
    // 1 - 17 / (sqrt(14) * sqrt(21))
    expect(rows[0]?.distance).toBeCloseTo(1 - 17 / Math.sqrt(14 * 21), 6);
  }, 120_000);

  it('shares one instance within a file', async () => {
    expect(await sharedPglite()).toBe(await sharedPglite());
  });
});
