import { describe, expect, it } from 'vitest';
import { parseListen, parseServerArgs } from '../src/host.js';

describe('memory-mcp arguments', () => {
  it.each([
    ['8788', { host: '127.0.0.1', port: 8788 }],
    [':0', { host: '127.0.0.1', port: 0 }],
    ['localhost:9000', { host: 'localhost', port: 9000 }],
    ['[::1]:9001', { host: '::1', port: 9001 }],
  ])('reads --http %s', (value, expected) => {
    expect(parseListen(value)).toEqual(expected);
  });

  it.each(['abc', '127.0.0.1:', '1.2.3.4:70000', '::1:80'])('refuses --http %s', (value) => {
    expect(() => parseListen(value)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });

  it('takes MEMORY_DB and MEMORY_AGENT, flags first', () => {
    const env = { MEMORY_DB: '/data/m.db', MEMORY_AGENT: 'env-agent' };
    expect(parseServerArgs([], env)).toEqual({ db: '/data/m.db', agentId: 'env-agent', embedder: 'none' });
    expect(parseServerArgs(['--agent', 'flag-agent', '--embedder', 'offline', '--http', '8788'], env)).toEqual({
      db: '/data/m.db',
      agentId: 'flag-agent',
      embedder: 'offline',
      http: { host: '127.0.0.1', port: 8788 },
    });
  });

  it('takes --require-token with --http, where --agent becomes optional; off loopback tokens are implied', () => {
    expect(parseServerArgs(['--db', 'x', '--http', '8788', '--require-token'], {})).toEqual({
      db: 'x',
      embedder: 'none',
      http: { host: '127.0.0.1', port: 8788 },
      requireToken: true,
    });
    expect(parseServerArgs(['--db', 'x', '--http', '0.0.0.0:8788'], {})).toMatchObject({ requireToken: true });
    expect(parseServerArgs(['--db', 'x', '--agent', 'a', '--http', '8788'], {})).not.toHaveProperty('requireToken');
    expect(() => parseServerArgs(['--db', 'x', '--require-token'], {})).toThrow(/--http/);
    expect(() => parseServerArgs(['--db', 'x', '--http', '8788'], {})).toThrow(/--agent/);
  });

  it('refuses an unknown embedder, a missing scope and unknown flags', () => {
    expect(() => parseServerArgs(['--db', 'x', '--agent', 'a', '--embedder', 'gpt'], {})).toThrow(/--embedder/);
    expect(() => parseServerArgs(['--db', 'x'], {})).toThrow(/--agent/);
    expect(() => parseServerArgs(['--db', 'x', '--agent', 'a', '--agentId', 'b'], {})).toThrow();
  });
});
