import { describe, expect, it } from 'vitest';
import { defaultConfig, isMemoryError, resolveConfig } from '../src/index.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return isMemoryError(error) ? error.code : 'not-a-memory-error';
  }
};

describe('configuration', () => {
  it('fills every documented default', () => {
    expect(defaultConfig.limits.maxContentBytes).toBe(65536);
    expect(defaultConfig.recall).toMatchObject({
      defaultLimit: 10,
      maxLimit: 50,
      maxQueryTokens: 24,
      andTokenLimit: 3,
      lexicalCandidates: 200,
      semanticCandidates: 100,
      vectorScanWindow: 10_000,
      searchWindowDays: 90,
      recentOnlyDays: 7,
      fusion: 'weighted',
      semanticWeight: 0.3,
      lexicalWeight: 0.7,
      minScore: 0.1,
      hintOnlyCap: 0.75,
      recencyBoost: 0.1,
      recencyDays: 365,
      dampening: {
        gravity: true,
        gravityFactor: 0.5,
        hub: true,
        hubFactor: 0.7,
        hubPercentile: 0.9,
        resolution: false,
        resolutionFactor: 1.2,
      },
    });
    expect(defaultConfig.traversal).toMatchObject({ enabled: true, maxHops: 1, flatReserve: 0.4, unanchoredCap: 0.35 });
    expect(defaultConfig.hints).toMatchObject({ enabled: true, maxPerMemory: 5 });
    expect(defaultConfig.telemetry.recallQa).toBe(false);
    expect(defaultConfig.remember.batchSize).toBe(100);
    expect(defaultConfig.remember.batchBytes).toBe(128 * 1024);
    expect(defaultConfig.retention.recoverWindowDays).toBe(30);
    expect(defaultConfig.store.vectorExtension).toBe('auto');
  });

  it('deep-merges a partial config onto the defaults', () => {
    const config = resolveConfig({ recall: { defaultLimit: 5 } });
    expect(config.recall.defaultLimit).toBe(5);
    expect(config.recall.maxLimit).toBe(50);
    expect(config.limits.maxContentBytes).toBe(65536);
  });

  it('returns a frozen object', () => {
    const config = resolveConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.recall)).toBe(true);
  });

  it('rejects unknown keys, naming them', () => {
    expect(codeOf(() => resolveConfig({ recal: {} }))).toBe('INVALID_CONFIG');
    expect(() => resolveConfig({ recall: { defaultLimt: 3 } })).toThrow(/defaultLimt/);
  });

  it('rejects out-of-range values', () => {
    expect(codeOf(() => resolveConfig({ remember: { defaultImportance: 2 } }))).toBe('INVALID_CONFIG');
    expect(codeOf(() => resolveConfig({ limits: { maxContentBytes: -1 } }))).toBe('INVALID_CONFIG');
    expect(codeOf(() => resolveConfig({ store: { vectorExtension: 'maybe' } }))).toBe('INVALID_CONFIG');
  });

  it('rejects retired extraction settings with the name of what replaced them', () => {
    expect(() => resolveConfig({ pipeline: { extraction: { provider: 'ollama' } } })).toThrow(/Dreaming/);
    expect(() => resolveConfig({ extractionModel: 'qwen3' })).toThrow(/retired/);
    expect(() => resolveConfig({ pipeline: { minFactConfidenceForWrite: 0.7 } })).toThrow(
      /dreaming\.minConfidenceForWrite/,
    );
    expect(() => resolveConfig({ autonomous: { allowUpdateDelete: true } })).toThrow(/dreaming\.allowUpdateDelete/);
    expect(codeOf(() => resolveConfig({ pipeline: { shadowMode: true } }))).toBe('INVALID_CONFIG');
  });
});
