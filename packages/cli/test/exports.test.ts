import { expect, it } from 'vitest';

// A new export is a reviewed change: update this list deliberately (vitest -u).
it('@memory/cli exports', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toMatchSnapshot();
});
