import { describe, expect, it } from 'vitest';

// A new export is a reviewed change: update these lists deliberately.
describe('public exports', () => {
  it.each([
    ['@memory/core', () => import('@memory/core')],
    ['@memory/store', () => import('@memory/store')],
    ['@memory/store/testing', () => import('@memory/store/testing')],
    ['@memory/queue', () => import('@memory/queue')],
    ['@memory/queue/testing', () => import('@memory/queue/testing')],
    ['@memory/ingest', () => import('@memory/ingest')],
    ['@memory/recall', () => import('@memory/recall')],
    ['@memory/engine', () => import('@memory/engine')],
    ['@memory/providers', () => import('@memory/providers')],
    ['@memory/dreaming', () => import('@memory/dreaming')],
  ])('%s', async (name, load) => {
    expect(Object.keys(await load()).sort()).toMatchSnapshot(name);
  });
});
