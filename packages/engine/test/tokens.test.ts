import { createSeededRandom } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { isMemoryError } from '../src/index.js';
import { createTestEngine, T0 } from './helpers.js';

describe('engine.tokens', () => {
  it('creates a token whose secret is shown once and stored only as a hash', async () => {
    const { engine } = await createTestEngine({ random: createSeededRandom(7) });
    const created = await engine.tokens.create({ agents: ['a', 'b', 'a'], permissions: ['write', 'read'], name: 'ci' });
    expect(created.token).toMatch(/^mem_id-\d{6}\.[0-9a-f]{64}$/);
    expect(created).toMatchObject({ agents: ['a', 'b'], permissions: ['read', 'write'], name: 'ci', createdAt: T0 });
    const secret = created.token.split('.')[1] ?? '';
    const listed = await engine.tokens.list();
    expect(listed).toEqual([{ ...created, token: undefined }].map(({ token: _, ...t }) => t));
    expect(JSON.stringify(listed)).not.toContain(secret);
    await engine.close();
  });

  it('verifies the exact token and nothing else', async () => {
    const { engine } = await createTestEngine();
    const { token, id } = await engine.tokens.create({ agents: ['a'], permissions: ['read'] });
    expect(await engine.tokens.verify({ token })).toMatchObject({ id, agents: ['a'], permissions: ['read'] });
    const last = token.at(-1) === '0' ? '1' : '0';
    for (const wrong of [`${token.slice(0, -1)}${last}`, token.replace(id, 'id-999999'), 'mem_x', '', `${token}0`]) {
      expect(await engine.tokens.verify({ token: wrong })).toBeUndefined();
    }
    await engine.close();
  });

  it('a revoked or expired token stops verifying; revoke twice reports false', async () => {
    const { engine, clock } = await createTestEngine();
    const a = await engine.tokens.create({ agents: ['a'], permissions: ['read'] });
    const b = await engine.tokens.create({ agents: ['b'], permissions: ['read'], expiresAt: T0 + 1000 });
    expect(await engine.tokens.revoke({ id: a.id })).toEqual({ revoked: true });
    expect(await engine.tokens.revoke({ id: a.id })).toEqual({ revoked: false });
    expect(await engine.tokens.verify({ token: a.token })).toBeUndefined();
    expect(await engine.tokens.verify({ token: b.token })).toBeDefined();
    clock.advance(1000);
    expect(await engine.tokens.verify({ token: b.token })).toBeUndefined();
    expect((await engine.tokens.list()).map((t) => t.id)).toEqual([b.id]);
    expect((await engine.tokens.list({ includeRevoked: true })).map((t) => t.id)).toEqual([a.id, b.id]);
    expect((await engine.tokens.list({ agentId: 'a', includeRevoked: true })).map((t) => t.id)).toEqual([a.id]);
    await engine.close();
  });

  it('refuses tokens without agents or permissions, unknown permissions, and past expiry', async () => {
    const { engine } = await createTestEngine();
    for (const input of [
      { agents: [], permissions: ['read'] },
      { agents: ['a'], permissions: [] },
      { agents: ['a'], permissions: ['root'] },
      { agents: [' a'], permissions: ['read'] },
      { agents: ['a'], permissions: ['read'], expiresAt: T0 },
      { agents: ['a'], permissions: ['read'], extra: 1 },
    ]) {
      await expect(engine.tokens.create(input as never)).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_INPUT'));
    }
    expect(await engine.tokens.list({ includeRevoked: true })).toEqual([]);
    await engine.close();
  });
});

describe('engine.list as the HTTP listing uses it', () => {
  it('pages a scope newest first with a cursor, never showing another scope', async () => {
    const { engine, clock } = await createTestEngine();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await engine.remember({ agentId: 'a', content: `fact number ${i}` })).id);
      if (i !== 2) clock.advance(10); // two memories share a timestamp: the tie is broken by insertion order
    }
    await engine.remember({ agentId: 'b', content: 'other scope' });
    const first = await engine.list({ agentId: 'a', limit: 2 });
    expect(first.memories.map((m) => m.id)).toEqual([ids[4], ids[3]]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await engine.list({ agentId: 'a', limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.memories.map((m) => m.id)).toEqual([ids[2], ids[1]]);
    const third = await engine.list({ agentId: 'a', limit: 2, cursor: second.nextCursor ?? '' });
    expect(third).toEqual({ memories: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    await engine.forget({ agentId: 'a', id: ids[4] ?? '', reason: 'test' });
    expect((await engine.list({ agentId: 'a' })).memories).toHaveLength(4);
    expect((await engine.list({ agentId: 'a', includeForgotten: true })).memories).toHaveLength(5);
    expect((await engine.list({ agentId: 'c' })).memories).toEqual([]);
    await expect(engine.list({ agentId: 'a', cursor: 'nope' })).rejects.toSatisfy((e) =>
      isMemoryError(e, 'INVALID_INPUT'),
    );
    await engine.close();
  });
});
