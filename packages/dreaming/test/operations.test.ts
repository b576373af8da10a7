import { parseLenientJson } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES, operationJsonSchema } from '../src/index.js';
import { CONTENT_OPERATIONS, HYGIENE_OPERATIONS, parseOperations } from '../src/operations.js';

const cite = [{ sourceRef: 'transcript:chat-1', quote: 'we moved the launch to March' }];

describe('operation parsing (model output is untrusted)', () => {
  it('accepts well-formed operations of every family', () => {
    const ops = [
      {
        operation: 'create_entity',
        payload: { name: 'Project Atlas', entityType: 'project', aliases: ['Atlas'] },
        evidence: cite,
        confidence: 0.9,
      },
      {
        operation: 'add_claim',
        payload: {
          aspectId: 'asp-1',
          claimKey: 'launch_month',
          content: 'The launch is in March.',
          validFrom: Date.UTC(2026, 2, 1),
          timePrecision: 'month',
        },
        evidence: cite,
      },
      {
        operation: 'create_link',
        payload: { sourceEntityId: 'e1', targetEntityId: 'e2', type: 'depends_on', strength: 0.8 },
        evidence: cite,
      },
      { operation: 'remember_memory', payload: { content: 'Atlas launches in March.', type: 'fact' }, evidence: cite },
      {
        operation: 'archive_entity',
        payload: { entityId: 'e9' },
        evidence: [{ sourceRef: 'attention:17', quote: '' }],
      },
      { operation: 'flag', payload: { kind: 'hygiene', subjectRef: 'entity:e9', details: 'duplicate of e1' } },
      { operation: 'decline_attention', payload: { attentionId: '17' }, reason: 'not a duplicate' },
    ];
    const parsed = parseOperations(ops);
    expect(parsed).toMatchObject({ ok: true, rejected: [] });
    if (parsed.ok) expect(parsed.valid.map((v) => v.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('rejects each malformed operation with a reason naming the field, leaving the others valid', () => {
    const parsed = parseOperations([
      { operation: 'create_entity', payload: { name: 'Atlas' }, evidence: cite },
      { operation: 'delete_everything', payload: {} },
      { operation: 'create_entity', payload: { name: '' } },
      { operation: 'add_claim', payload: { aspectId: 'a', claimKey: 'k', content: 'c', confidence_boost: 3 } },
      { operation: 'add_claim', payload: { aspectId: 'a', claimKey: 'k', content: 'c', validFrom: 'last tuesday' } },
      { operation: 'create_link', payload: { sourceEntityId: 'e1', targetEntityId: 'e2', type: 'x', strength: 7 } },
      { operation: 'remember_memory', payload: { content: 'x', type: 'document_chunk' } },
      { operation: 'create_entity', payload: { name: 'B' }, confidence: 'high' },
      'not even an object',
      null,
    ]);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.valid.map((v) => v.index)).toEqual([0]);
    const reasons = Object.fromEntries(parsed.rejected.map((r) => [r.index, r.reason]));
    expect(reasons[1]).toMatch(/operation must be one of: create_entity/);
    expect(reasons[2]).toMatch(/payload.name: name must not be empty/);
    expect(reasons[3]).toMatch(/confidence_boost/);
    expect(reasons[4]).toMatch(/payload.validFrom: validFrom must be epoch milliseconds/);
    expect(reasons[5]).toMatch(/payload.strength: strength must be 0..1/);
    expect(reasons[6]).toMatch(/payload.type/);
    expect(reasons[7]).toMatch(/confidence must be a number/);
    expect(reasons[8]).toBeDefined();
    expect(reasons[9]).toBeDefined();
  });

  it('parses what a model returned around <think> blocks and code fences', () => {
    const output =
      '<think>I should add the launch claim</think>\n```json\n[{"operation": "add_claim", "payload": {"aspectId": "asp-1", "claimKey": "launch", "content": "Launch in March"}, "evidence": [{"sourceRef": "transcript:chat-1", "quote": "we moved the launch to March"}],}]\n```';
    expect(parseOperations(parseLenientJson(output))).toMatchObject({ ok: true, rejected: [], valid: [{ index: 0 }] });
  });

  it('refuses a batch that is not an array or is over 100 operations', () => {
    expect(parseOperations({ operation: 'flag' })).toEqual({ ok: false, reason: 'operations must be an array' });
    const many = Array.from({ length: 101 }, () => ({ operation: 'decline_attention', payload: { attentionId: '1' } }));
    expect(parseOperations(many)).toEqual({ ok: false, reason: expect.stringMatching(/at most 100 operations/) });
  });

  it('classifies every operation: content ones cite evidence, hygiene ones cite attention, flag and decline neither', () => {
    for (const op of OPERATION_NAMES) {
      const both = CONTENT_OPERATIONS.has(op) && HYGIENE_OPERATIONS.has(op);
      expect(both).toBe(false);
    }
    const unclassified = OPERATION_NAMES.filter((op) => !CONTENT_OPERATIONS.has(op) && !HYGIENE_OPERATIONS.has(op));
    expect(unclassified.sort()).toEqual(['decline_attention', 'flag']);
  });

  it('generates the apply tool’s JSON Schema from the same definitions', () => {
    const schema = JSON.stringify(operationJsonSchema());
    for (const op of OPERATION_NAMES) expect(schema).toContain(`"${op}"`);
    expect(schema).toContain('"additionalProperties":false');
  });
});
