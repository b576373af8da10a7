import { expect, it } from 'vitest';

// A new export is a reviewed change: update this list deliberately.
it('@memory/http exports', async () => {
  expect(Object.keys(await import('@memory/http')).sort()).toEqual([
    'HTTP_ERROR_CODES',
    'HTTP_STATUS',
    'createHttpServer',
    'serveHttp',
  ]);
});
