import { createMemoryEngine, isMemoryError, type MemoryEngine } from '@memory/engine';
import { describe, expect, it } from 'vitest';
import { createHttpServer, serveHttp } from '../src/index.js';
import { startServer } from './helpers.js';

describe('server lifecycle and failures', () => {
  it('refuses bad options with INVALID_CONFIG', async () => {
    const engine = await createMemoryEngine({ database: { path: ':memory:' } });
    expect(() => createHttpServer({ engine: {} as MemoryEngine })).toThrow(/MemoryEngine/);
    for (const bad of [{ maxBodyBytes: 10 }, { rateLimit: { requests: 0 } }, { maxUploadBytes: -1 }]) {
      let error: unknown;
      try {
        createHttpServer({ engine, ...bad });
      } catch (e) {
        error = e;
      }
      expect(isMemoryError(error, 'INVALID_CONFIG')).toBe(true);
    }
    await expect(serveHttp({ engine, port: 70_000 })).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_CONFIG'));
    const first = await serveHttp({ engine, port: 0 });
    await expect(serveHttp({ engine, port: first.port })).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_CONFIG'));
    await first.close();
    await first.close(); // idempotent
    await engine.close();
  });

  it('keeps idle connections longer than clients do, so a client never reuses one the server closed', async () => {
    const { request } = await startServer();
    expect((await request('GET', '/health')).headers.get('keep-alive')).toBe('timeout=65');
    const engine = await createMemoryEngine({ database: { path: ':memory:' } });
    await expect(serveHttp({ engine, port: 0, keepAliveTimeoutMs: 10 })).rejects.toSatisfy((e) =>
      isMemoryError(e, 'INVALID_CONFIG'),
    );
    await engine.close();
  });

  it('answers 503 ENGINE_CLOSED once the engine is closed', async () => {
    const { request, token, engine } = await startServer();
    const t = await token(['bot']);
    await engine.close();
    const reply = await request('GET', '/api/memories', { token: t });
    expect([reply.status, reply.body.error.code]).toEqual([503, 'ENGINE_CLOSED']);
  });

  it('hides unexpected errors behind INTERNAL_ERROR and logs them', async () => {
    const engine = await createMemoryEngine({ database: { path: ':memory:' } });
    const { token } = await engine.tokens.create({ agents: ['bot'], permissions: ['read'] });
    const logged: string[] = [];
    const broken: MemoryEngine = { ...engine, recall: () => Promise.reject(new Error('disk path /secret/x')) };
    const api = createHttpServer({
      engine: broken,
      logger: { debug() {}, info() {}, warn() {}, error: (_m, fields) => logged.push(String(fields?.error)) },
    });
    const response = await api.fetch(
      new Request('http://local/api/recall', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: 'x' }),
      }),
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'internal error', details: {} },
    });
    expect(logged).toEqual(['disk path /secret/x']);
    await engine.close();
  });
});
