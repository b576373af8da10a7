import type { MemoryId } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { selectExcerpt } from '../src/expand.js';
import { formatRecall } from '../src/index.js';
import type { RecallResponse, RecallResult } from '../src/types.js';

const result = (
  id: string,
  score: number,
  tier: 'linked' | 'related',
  content: string,
  extra: Partial<Omit<RecallResult, 'kind'>> = {},
): RecallResult => ({
  kind: 'memory',
  id: id as MemoryId,
  content,
  type: 'fact',
  score,
  tier,
  channels: {},
  tags: [],
  project: null,
  who: null,
  importance: 0.5,
  pinned: false,
  createdAt: Date.UTC(2026, 0, 2),
  ...extra,
});

const response = (results: RecallResult[], drillDown: RecallResponse['drillDown'] = []): RecallResponse => ({
  results,
  query: { tokens: ['dana'], mode: 'and' },
  vectorCompleteness: 'exact',
  window: { since: null, days: null, now: Date.UTC(2026, 0, 3), excluded: 0 },
  drillDown,
  warnings: [],
  timings: {
    totalMs: 1,
    lexicalMs: 0,
    hintsMs: 0,
    traversalMs: 0,
    linkedMs: 0,
    embedWaitMs: 0,
    semanticMs: 0,
    fusionMs: 0,
    expandMs: 0,
  },
});

describe('formatRecall', () => {
  it('renders linked context, possibly related and drill-down in a stable order', () => {
    const text = formatRecall(
      response(
        [
          result('b', 0.41, 'related', 'Dana\nasked about invoices'),
          result('a', 0.9, 'linked', 'Dana prefers short status emails', {
            type: 'preference',
            entities: [{ id: 'e1', name: 'Dana' }],
          }),
          result('c', 0.41, 'related', 'Quarterly review with Dana'),
        ],
        [{ kind: 'expand_session', sessionKey: 's-1', reason: 'read the conversation' }],
      ),
    );
    expect(text).toBe(
      [
        'LINKED CONTEXT',
        '- [preference · 2026-01-02] Dana prefers short status emails (about: Dana)',
        '',
        'POSSIBLY RELATED',
        '- [fact · 2026-01-02 · 0.41] Dana asked about invoices',
        '- [fact · 2026-01-02 · 0.41] Quarterly review with Dana',
        '',
        'DRILL-DOWN',
        '- expand session s-1: read the conversation',
      ].join('\n'),
    );
  });

  it('ends each result line with its id when asked, and only then', () => {
    const r = response([result('mem-7', 0.5, 'related', 'Dana likes tea')]);
    expect(formatRecall(r, { ids: true })).toBe(
      'POSSIBLY RELATED\n- [fact · 2026-01-02 · 0.50] Dana likes tea [id: mem-7]',
    );
    expect(formatRecall(r)).not.toContain('mem-7');
  });

  it('stops at the token budget and says what it left out', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      result(`r${String(i).padStart(2, '0')}`, 1 - i / 100, 'related', `memory number ${i} `.repeat(5)),
    );
    const text = formatRecall(response(many), { budgetTokens: 100 });
    expect(text.length).toBeLessThanOrEqual(400 + 60);
    expect(text).toMatch(/^POSSIBLY RELATED\n- \[fact · 2026-01-02 · 1.00\] memory number 0 /);
    expect(text).toMatch(/\(\d+ more items left out to fit the budget\)$/);
  });

  it('says so when nothing was found', () => {
    expect(formatRecall(response([]))).toBe('NO RELEVANT MEMORIES');
  });
});

describe('transcript excerpts', () => {
  const turns = [
    'hi there',
    'how was the trip to Lisbon?',
    'Lisbon was great, we ate pastel de nata',
    'nice',
    'see you',
  ].map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }));

  it('centres on the turn sharing most query terms and grows outwards within the budget', () => {
    const { text, truncated } = selectExcerpt(turns, ['lisbon', 'nata'], 120);
    expect(text).toContain('user: Lisbon was great, we ate pastel de nata');
    expect(text.length).toBeLessThanOrEqual(120);
    expect(truncated).toBe(true);
    const lines = text.split('\n');
    expect(lines.indexOf('user: Lisbon was great, we ate pastel de nata')).toBeGreaterThanOrEqual(0);
  });

  it('returns the whole session when it fits, in order', () => {
    const { text, truncated } = selectExcerpt(turns, ['nice'], 10_000);
    expect(text.split('\n')).toHaveLength(5);
    expect(text.startsWith('user: hi there')).toBe(true);
    expect(truncated).toBe(false);
  });

  it('cuts a single over-long turn to the budget', () => {
    const { text } = selectExcerpt([{ role: 'user', content: 'x'.repeat(5000) }], ['x'], 100);
    expect(text.length).toBeLessThanOrEqual(100);
  });
});

describe('formatRecall and the search window', () => {
  const windowed = (results: RecallResult[], excluded: number, drillDown: RecallResponse['drillDown'] = []) => ({
    ...response(results, drillDown),
    window: { since: Date.UTC(2025, 9, 5), days: 90, now: Date.UTC(2026, 0, 3), excluded },
  });

  it('says how many older matches the window left out when nothing is in it', () => {
    expect(formatRecall(windowed([], 3))).toBe(
      'NO RELEVANT MEMORIES in the last 90 days (since 2025-10-05); 3 older matching memories outside the window: recall with windowDays: null to see them',
    );
    expect(formatRecall(windowed([], 0))).toBe('NO RELEVANT MEMORIES');
  });

  it('shows the widen-window drill-down beside results', () => {
    const text = formatRecall(
      windowed([result('a', 0.5, 'related', 'Dana likes tea')], 1000, [
        { kind: 'widen_window', windowDays: null, excluded: 1000, reason: '1000+ matching memories are older' },
      ]),
    );
    expect(text).toContain('DRILL-DOWN\n- widen the window (windowDays: null): 1000+ matching memories are older');
  });
});
