import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentIdSchema,
  createIdGenerator,
  createManualClock,
  createManualScheduler,
  createSeededRandom,
  createSequentialIds,
  isMemoryError,
  isWellFormedId,
  MEMORY_ERROR_CODES,
  MemoryError,
  parseInput,
  TransactionBoundaryError,
  timeSchema,
} from '../src/index.js';

describe('MemoryError', () => {
  it('carries a stable code, JSON-safe details and the cause', () => {
    const cause = new Error('disk');
    const error = new MemoryError('STORAGE_ERROR', 'write failed', { cause, details: { table: 'memories' } });
    expect(isMemoryError(error)).toBe(true);
    expect(isMemoryError(error, 'STORAGE_ERROR')).toBe(true);
    expect(isMemoryError(error, 'NOT_FOUND')).toBe(false);
    expect(error.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'MemoryError',
      code: 'STORAGE_ERROR',
      message: 'write failed',
      details: { table: 'memories' },
    });
    expect(isMemoryError(new Error('x'))).toBe(false);
  });

  it('has a closed code set that includes the transaction boundary', () => {
    const error = new TransactionBoundaryError('embedder', 'embed');
    expect(error.code).toBe('TRANSACTION_BOUNDARY');
    expect(MEMORY_ERROR_CODES).toContain(error.code);
    expect(error).toBeInstanceOf(MemoryError);
  });
});

describe('ids', () => {
  it('mints well-formed, unique ids that sort by the injected clock', () => {
    const clock = createManualClock(1_700_000_000_000);
    const ids = createIdGenerator({ clock, random: createSeededRandom(7) });
    const first = ids.next();
    clock.advance(1);
    const second = ids.next();
    expect(isWellFormedId(first)).toBe(true);
    expect(first < second).toBe(true);
    const many = new Set(Array.from({ length: 1000 }, () => ids.next()));
    expect(many.size).toBe(1000);
  });

  it('is deterministic for a seeded source', () => {
    const make = () => createIdGenerator({ clock: createManualClock(5), random: createSeededRandom(1) });
    expect(make().next()).toBe(make().next());
    expect(createSequentialIds('t').next()).toBe('t-000001');
  });

  it('rejects malformed ids', () => {
    for (const bad of ['', ' x', 'a b', 'x'.repeat(129), '../etc', 5, null]) expect(isWellFormedId(bad)).toBe(false);
  });
});

describe('manual scheduler', () => {
  it('runs tasks at their due times on the virtual clock, in order', async () => {
    const clock = createManualClock(0);
    const scheduler = createManualScheduler(clock);
    const ran: string[] = [];
    scheduler.schedule(() => void ran.push(`b@${clock.now()}`), 200);
    scheduler.schedule(() => void ran.push(`a@${clock.now()}`), 100);
    const cancelled = scheduler.schedule(() => void ran.push('never'), 150);
    cancelled.cancel();
    expect(await scheduler.runDue()).toBe(0);
    expect(await scheduler.advance(250)).toBe(2);
    expect(ran).toEqual(['a@100', 'b@200']);
    expect(clock.now()).toBe(250);
    expect(scheduler.pending()).toBe(0);
  });

  it('runs tasks scheduled by tasks when they come due', async () => {
    const clock = createManualClock(0);
    const scheduler = createManualScheduler(clock);
    let ticks = 0;
    const tick = (): void => {
      ticks++;
      scheduler.schedule(tick, 10);
    };
    scheduler.schedule(tick, 10);
    await scheduler.advance(55);
    expect(ticks).toBe(5);
  });
});

describe('input parsing', () => {
  it('throws INVALID_INPUT listing every issue', () => {
    const schema = z.strictObject({ agentId: agentIdSchema, at: timeSchema });
    try {
      parseInput(schema, { agentId: ' x', at: 'not a date' }, 'test');
      expect.unreachable();
    } catch (error) {
      expect(isMemoryError(error, 'INVALID_INPUT')).toBe(true);
      expect((error as MemoryError).details['issues']).toHaveLength(2);
    }
    expect(parseInput(schema, { agentId: 'bot', at: '2026-01-02T00:00:00Z' }, 'test').at).toBe(Date.UTC(2026, 0, 2));
  });
});
