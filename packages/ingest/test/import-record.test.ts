import { defaultConfig } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../src/imports/record.js';

const base = {
  id: 'r1',
  source: 'claude-code',
  session_key: 'chat-1',
  timestamp: '2024-01-01T12:00:00Z',
  message_count: 1,
  messages: [{ role: 'user', content: 'hello' }],
};
const parse = (overrides: Record<string, unknown>) =>
  parseRecord(JSON.stringify({ ...base, ...overrides }), defaultConfig.imports);

describe('import records: the shared rules for versions and times', () => {
  it('reads signet-export v1 with or without its version field, and rejects any other version', () => {
    expect(parse({}).ok).toBe(true);
    expect(parse({ version: 1 }).ok).toBe(true);
    expect(parse({ version: '1' }).ok).toBe(true);
    for (const version of [2, '2', 0, 'v1', true, 1.5]) {
      expect(parse({ version }), String(version)).toMatchObject({ ok: false, reason: 'unsupported_version', id: 'r1' });
    }
  });

  it('takes epoch milliseconds or ISO-8601 within years 1–9999 and rejects the rest', () => {
    expect(parse({ timestamp: Date.UTC(2024, 0, 1) })).toMatchObject({
      ok: true,
      record: { timestamp: Date.UTC(2024, 0, 1) },
    });
    for (const timestamp of [1e300, -1e300, 'yesterday', 'Mon, 01 Jan 2024 12:00:00 GMT', '']) {
      expect(parse({ timestamp }), String(timestamp)).toMatchObject({ ok: false, reason: 'schema_violation' });
    }
  });
});
