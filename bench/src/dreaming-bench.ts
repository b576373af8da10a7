// Dreaming without the LLM: (1) the apply seam, batches of 100 valid operations (entities, aspects
// and claims citing exact quotes from a completed transcript), validated and written; (2) evidence
// selection over 10,000 completed transcripts: 128k-token windows, each resuming after the last.
//   npm run bench:dreaming
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { backlogTokens, recordDelivered, selectEvidence } from '@memory/dreaming';
import { createMemoryEngine } from '@memory/engine';
import { SqlExecutor } from '@memory/store/sql';
import Database from 'better-sqlite3';
import { fmt, percentile } from './stats.js';

const { values } = parseArgs({
  options: { batches: { type: 'string', default: '30' }, transcripts: { type: 'string', default: '10000' } },
});
const batches = Number(values.batches);
const dir = mkdtempSync(join(tmpdir(), 'memory-dreaming-bench-'));
const db = new Database(join(dir, 'dreaming.db'));
const engine = await createMemoryEngine({ database: { database: db } });
const agentId = 'bench-agent';
const lines = Array.from(
  { length: 200 },
  (_, i) => `Project P${i} ships in week ${i % 52} and is owned by team T${i % 17}.`,
);
await engine.transcripts.append({
  agentId,
  sessionKey: 'evidence',
  turns: lines.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content, id: `t${i}` })),
});
await engine.transcripts.complete({ agentId, sessionKey: 'evidence' });
const cite = (i: number) => [{ sourceRef: 'transcript:evidence', quote: lines[i % lines.length] as string }];

const timings: number[] = [];
let applied = 0;
for (let b = 0; b < batches; b++) {
  // Setup (not timed): 5 entities with one aspect each, so 100 claims stay under the 50-per-aspect cap.
  const entities = await engine.dreaming.apply({
    agentId,
    passId: `setup-${b}`,
    operations: Array.from({ length: 5 }, (_, i) => ({
      operation: 'create_entity',
      payload: { name: `Entity ${b}-${i}` },
      evidence: cite(i),
    })),
  });
  const aspects = await engine.dreaming.apply({
    agentId,
    passId: `setup-${b}`,
    operations: entities.applied.map((e, i) => ({
      operation: 'create_aspect',
      payload: { entityId: e.targetId, name: 'delivery' },
      evidence: cite(i),
    })),
  });
  const ops = Array.from({ length: 100 }, (_, i) => ({
    operation: 'add_claim',
    payload: {
      aspectId: aspects.applied[i % 5]?.targetId,
      claimKey: `claim-${i}`,
      content: lines[(b * 100 + i) % lines.length],
    },
    evidence: cite(b * 100 + i),
    confidence: 0.9,
  }));
  const started = performance.now();
  const result = await engine.dreaming.apply({ agentId, passId: `pass-${b}`, operations: ops });
  timings.push(performance.now() - started);
  applied += result.applied.length;
  if (result.rejected.length > 0)
    throw new Error(`unexpected rejections: ${JSON.stringify(result.rejected.slice(0, 2))}`);
}
console.log(
  `apply 100 valid operations (validate + write, no LLM): p50 ${fmt(percentile(timings, 50), 2)} ms, p95 ${fmt(percentile(timings, 95), 2)} ms over ${batches} batches (${applied} operations applied)`,
);

// (2) Evidence selection: another agent with many completed transcripts of ~1.5 KB.
const sessions = Number(values.transcripts);
const reader = 'reader-agent';
let t0 = performance.now();
for (let s = 0; s < sessions; s++) {
  const turns = Array.from({ length: 6 }, (_, i) => ({
    role: i % 2 ? ('assistant' as const) : ('user' as const),
    content: `${lines[(s + i) % lines.length]} Follow-up ${s}.${i}: the review notes mention budget, owners and dates.`,
    id: `s${s}-t${i}`,
  }));
  await engine.transcripts.append({ agentId: reader, sessionKey: `session-${s}`, turns });
  await engine.transcripts.complete({ agentId: reader, sessionKey: `session-${s}` });
}
console.log(
  `  (loaded ${sessions.toLocaleString('en-US')} completed transcripts in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);
const sql = new SqlExecutor(db);
t0 = performance.now();
const backlog = backlogTokens(sql, reader);
const backlogMs = performance.now() - t0;
const windows: number[] = [];
let delivered = 0;
for (let w = 0; w < 10; w++) {
  const started = performance.now();
  const window = selectEvidence(sql, reader, { budgetTokens: 128_000, fragmentChars: 2000 });
  windows.push(performance.now() - started);
  delivered += window.tokens;
  recordDelivered(sql, reader, window.spans, Date.now());
}
await engine.close();
db.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  `evidence selection over ${sessions.toLocaleString('en-US')} completed transcripts: backlog ${backlog.toLocaleString('en-US')} tokens counted in ${fmt(backlogMs, 1)} ms; 128k-token window p50 ${fmt(percentile(windows, 50), 1)} ms, p95 ${fmt(percentile(windows, 95), 1)} ms (${windows.length} windows, ${delivered.toLocaleString('en-US')} tokens delivered)`,
);
