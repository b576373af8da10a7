import { expect, it } from 'vitest';

// A new export is a reviewed change: update this list deliberately (vitest -u).
it('@memory/mcp exports', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toMatchSnapshot();
});
