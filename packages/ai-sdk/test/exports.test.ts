import { expect, it } from 'vitest';

// A new export is a reviewed change: update this list deliberately.
it('@memory/ai-sdk exports', async () => {
  expect(Object.keys(await import('@memory/ai-sdk')).sort()).toEqual(['memoryMiddleware', 'memoryTools']);
});
