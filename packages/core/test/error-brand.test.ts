import { describe, expect, it, vi } from 'vitest';

type CoreModule = typeof import('../src/index.js');

/** A second, separately evaluated copy of the package, as a partial upgrade installs it. */
async function loadCopy(): Promise<CoreModule> {
  vi.resetModules();
  return import('../src/index.js');
}

describe('MemoryError across two copies of @memory/core', () => {
  it('is recognized by the other copy through the registered brand', async () => {
    const a = await loadCopy();
    const b = await loadCopy();
    // The premise: two distinct classes, as with two installed copies.
    expect(a.MemoryError).not.toBe(b.MemoryError);

    const fromA = new a.MemoryError('NOT_FOUND', 'no such memory');
    expect(b.isMemoryError(fromA)).toBe(true);
    expect(b.isMemoryError(fromA, 'NOT_FOUND')).toBe(true);
    expect(b.isMemoryError(fromA, 'PINNED')).toBe(false);
    expect(fromA instanceof b.MemoryError).toBe(true);
    expect(b.isMemoryError(new a.TransactionBoundaryError('llm', 'generate'), 'TRANSACTION_BOUNDARY')).toBe(true);
  });

  it('does not accept look-alikes without the brand, and keeps subclass checks exact', async () => {
    const core = await loadCopy();
    const lookAlike = Object.assign(new Error('x'), { name: 'MemoryError', code: 'NOT_FOUND' });
    expect(core.isMemoryError(lookAlike)).toBe(false);
    expect(lookAlike instanceof core.MemoryError).toBe(false);
    expect(core.isMemoryError(null)).toBe(false);
    expect(core.isMemoryError('NOT_FOUND')).toBe(false);
    expect(new core.MemoryError('CONFLICT', 'x') instanceof core.TransactionBoundaryError).toBe(false);
    expect(new core.TransactionBoundaryError('llm', 'generate') instanceof core.MemoryError).toBe(true);
  });

  it('keeps the brand out of JSON and own keys', async () => {
    const core = await loadCopy();
    const error = new core.MemoryError('INVALID_INPUT', 'bad', { details: { field: 'content' } });
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'MemoryError',
      code: 'INVALID_INPUT',
      message: 'bad',
      details: { field: 'content' },
    });
  });
});
