import { createHash } from 'node:crypto';
import {
  createManualClock,
  createMemoryEngine,
  createSequentialIds,
  type EmbeddingProvider,
  type LlmProvider,
  type MemoryEngine,
} from '@memory/engine';

/** An offline embedder whose texts sharing words get similar vectors (feature hashing). */
export function wordEmbedder(dimensions = 48): EmbeddingProvider {
  return {
    model: 'words-test',
    dimensions,
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          const h = createHash('sha1').update(word).digest();
          v[h.readUInt32LE(0) % dimensions] = (v[h.readUInt32LE(0) % dimensions] ?? 0) + 1;
        }
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
  };
}

const TOPICS: Record<string, { type: 'fact' | 'preference' | 'decision'; lines: string[] }> = {
  tea: { type: 'preference', lines: ['green tea', 'black tea', 'oolong tea', 'jasmine tea', 'mint tea', 'iced tea'] },
  deploy: {
    type: 'decision',
    lines: [
      'deploy rollback',
      'deploy canary',
      'deploy freeze',
      'deploy window',
      'deploy pipeline',
      'deploy checklist',
    ],
  },
  northwind: {
    type: 'fact',
    lines: [
      'Northwind renewal',
      'Northwind contract',
      'Northwind discount',
      'Northwind invoice',
      'Northwind call',
      'Northwind owner',
    ],
  },
};

/**
 * An engine with one agent's memory in every state the inspector shows: memories of three kinds
 * (one with markup in it), entities with aspects, claims (one superseded) and links, and a pending
 * shadow-mode proposal. Another agent has a memory too.
 */
export async function seededEngine(): Promise<{ engine: MemoryEngine; ids: Record<string, string> }> {
  // One scripted Dreaming pass: read the evidence, create an entity quoting it, finish.
  let turn = 0;
  const llm: LlmProvider = {
    async generate() {
      turn++;
      if (turn === 1) return { text: '', toolCalls: [{ id: 't1', name: 'next_evidence', arguments: '{}' }] };
      if (turn === 2)
        return {
          text: '',
          toolCalls: [
            {
              id: 't2',
              name: 'apply_operations',
              arguments: JSON.stringify({
                operations: [
                  {
                    operation: 'create_entity',
                    payload: { name: 'Fornax Team', entityType: 'team' },
                    evidence: [{ sourceRef: 'transcript:standup', quote: 'the Fornax team owns billing' }],
                  },
                ],
              }),
            },
          ],
        };
      return { text: 'Created the Fornax team.' };
    },
  };
  const engine = await createMemoryEngine({
    llm,
    database: { path: ':memory:' },
    clock: createManualClock(Date.UTC(2026, 0, 1)),
    ids: createSequentialIds('id'),
    embedder: wordEmbedder(),
    config: { hints: { enabled: false } },
  });
  const ids: Record<string, string> = {};
  for (const [topic, { type, lines }] of Object.entries(TOPICS)) {
    for (const line of lines) {
      const { id } = await engine.remember({ agentId: 'bot', content: `${line}: ${topic} notes for the team`, type });
      ids[line] = id;
    }
  }
  ids.markup = (
    await engine.remember({ agentId: 'bot', content: 'Beware <script>alert("x")</script> in pasted tea notes' })
  ).id;
  ids.other = (await engine.remember({ agentId: 'other', content: 'Northwind secret of another agent' })).id;
  const quote = (id: string | undefined, text: string) => [{ sourceRef: `memory:${id}`, quote: text }];
  const created = await engine.dreaming.apply({
    agentId: 'bot',
    passId: 'seed',
    operations: [
      {
        operation: 'create_entity',
        payload: { name: 'Northwind', entityType: 'customer' },
        evidence: quote(ids['Northwind renewal'], 'Northwind renewal'),
      },
      {
        operation: 'create_entity',
        payload: { name: 'Dana' },
        evidence: quote(ids['Northwind owner'], 'Northwind owner'),
      },
    ],
  });
  ids.northwind = created.applied[0]?.targetId ?? '';
  ids.dana = created.applied[1]?.targetId ?? '';
  const aspect = await engine.dreaming.apply({
    agentId: 'bot',
    passId: 'seed',
    operations: [
      {
        operation: 'create_aspect',
        payload: { entityId: ids.northwind, name: 'contract' },
        evidence: quote(ids['Northwind contract'], 'Northwind contract'),
      },
      {
        operation: 'create_link',
        payload: { sourceEntityId: ids.dana, targetEntityId: ids.northwind, type: 'owns' },
        evidence: quote(ids['Northwind owner'], 'Northwind owner'),
      },
    ],
  });
  const claim = await engine.dreaming.apply({
    agentId: 'bot',
    passId: 'seed',
    operations: [
      {
        operation: 'add_claim',
        payload: { aspectId: aspect.applied[0]?.targetId, claimKey: 'renewal', content: 'Renews in March' },
        evidence: quote(ids['Northwind renewal'], 'Northwind renewal'),
      },
    ],
  });
  await engine.dreaming.apply({
    agentId: 'bot',
    passId: 'seed',
    operations: [
      {
        operation: 'supersede_claim',
        payload: { claimId: claim.applied[0]?.targetId, content: 'Renews in April' },
        evidence: quote(ids['Northwind renewal'], 'renewal: northwind notes'),
      },
      {
        operation: 'remember_memory',
        payload: { content: 'Dana prefers green tea at the Northwind call.', type: 'preference' },
        risk: 'review_required',
        evidence: quote(ids['green tea'], 'green tea: tea notes'),
      },
    ],
  });
  await engine.dreaming.apply({
    agentId: 'bot',
    passId: 'seed-2',
    operations: [
      {
        operation: 'remember_memory',
        payload: { content: 'Northwind wants invoices by mail.', type: 'preference' },
        risk: 'review_required',
        evidence: quote(ids['Northwind invoice'], 'Northwind invoice'),
      },
    ],
  });
  await engine.transcripts.append({
    agentId: 'bot',
    sessionKey: 'standup',
    turns: [{ role: 'user', content: 'Reminder: the Fornax team owns billing now.' }],
  });
  await engine.transcripts.complete({ agentId: 'bot', sessionKey: 'standup' });
  const pass = await engine.dreaming.runPass({ agentId: 'bot', mode: 'incremental' });
  ids.pass = pass.passId;
  const queue = await engine.dreaming.proposals.list({ agentId: 'bot' });
  ids.proposal = queue.items[0]?.id ?? '';
  ids.proposal2 = queue.items[1]?.id ?? '';
  return { engine, ids };
}
