import { describe, expect, it } from 'vitest';

describe('@memory/inspector exports', () => {
  it('has a reviewed list of runtime exports', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toMatchInlineSnapshot(`
      [
        "startInspector",
      ]
    `);
  });
});
