// Import throughput (signet-export v1) and document ingest speed.
//   npm run bench:ingest
//   npm run bench:ingest -- --records 2000 --doc-mib 2
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createMemoryEngine, type EmbeddingProvider } from '@memory/engine';
import { fmt } from './stats.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    records: { type: 'string', default: '10000' },
    messages: { type: 'string', default: '10' },
    'doc-mib': { type: 'string', default: '10' },
  },
});
const records = Number(values.records);
const perRecord = Number(values.messages);
const docMiB = Number(values['doc-mib']);
const dir = mkdtempSync(join(tmpdir(), 'memory-ingest-bench-'));

// 1. Import
const file = join(dir, 'export.jsonl');
const topics = [
  'billing',
  'onboarding',
  'the offsite',
  'hiring',
  'the roadmap',
  'incident review',
  'pricing',
  'the migration',
];
const lines: string[] = [];
for (let n = 0; n < records; n++) {
  const messages = Array.from({ length: perRecord }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `${i % 2 ? 'Sure —' : 'Can we talk about'} ${topics[(n + i) % topics.length]} for project ${n % 97}? Point ${i}: ${'details '.repeat(4 + (i % 5))}`,
  }));
  lines.push(
    JSON.stringify({
      id: `r${n}`,
      source: 'bench',
      harness: 'bench',
      agent_id: 'x',
      session_key: `s${n}`,
      project: `p${n % 13}`,
      timestamp: '2025-03-01T10:00:00Z',
      message_count: messages.length,
      messages,
    }),
  );
}
writeFileSync(file, `${lines.join('\n')}\n`);
lines.length = 0;
const totalMessages = records * perRecord;

const importEngine = await createMemoryEngine({
  database: { path: join(dir, 'import.db') },
  config: { imports: { allowedDirectories: [dir] } },
});
const rssBefore = process.memoryUsage().rss;
let t0 = performance.now();
const { jobId } = await importEngine.imports.start({ agentId: 'bench', file });
await importEngine.runDue();
const importSeconds = (performance.now() - t0) / 1000;
const status = await importEngine.imports.status({ agentId: 'bench', jobId });
await importEngine.close();
console.log(
  `import                      ${fmt(totalMessages / importSeconds, 0)} messages/s (${totalMessages.toLocaleString('en-US')} messages in ${records.toLocaleString('en-US')} records, ${fmt(importSeconds, 2)} s; ${status?.counters.imported} imported, ${status?.status})`,
);
console.log(
  `peak RSS                    ${fmt(process.resourceUsage().maxRSS / 1024, 0)} MiB (RSS before the import ${fmt(rssBefore / 1024 / 1024, 0)} MiB)`,
);

// 2. Documents
const paragraph = (i: number) =>
  `Section ${i}. ${'The quarterly planning review covers budget, hiring and the release train. '.repeat(6)}`;
let text = '';
for (let i = 0; Buffer.byteLength(text) < docMiB * 1024 * 1024; i++) text += `${paragraph(i)}\n\n`;

/** A deterministic hashing embedder (no model), to measure the pipeline around a real one. */
const hashingEmbedder: EmbeddingProvider = {
  model: 'bench-hash-256',
  dimensions: 256,
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(256);
      for (const word of t.toLowerCase().split(/\W+/)) {
        if (!word) continue;
        const bucket = createHash('md5').update(word).digest().readUInt8(0);
        v[bucket] = (v[bucket] ?? 0) + 1;
      }
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  },
};

for (const [label, embedder] of [
  ['no embedder', undefined],
  ['hashing embedder', hashingEmbedder],
] as const) {
  const engine = await createMemoryEngine({
    database: { path: join(dir, `docs-${label.replace(/\W/g, '')}.db`) },
    ...(embedder ? { embedder } : {}),
    config: { documents: { maxBytes: 64 * 1024 * 1024 } },
  });
  t0 = performance.now();
  const { id } = await engine.documents.add({ agentId: 'bench', content: text, title: 'Planning handbook' });
  await engine.runDue();
  const seconds = (performance.now() - t0) / 1000;
  const doc = await engine.documents.get({ agentId: 'bench', id });
  console.log(
    `document ${docMiB} MiB, ${label.padEnd(16)} ${fmt((doc?.chunkCount ?? 0) / seconds, 0)} chunks/s (${doc?.chunkCount} chunks in ${fmt(seconds, 2)} s, status ${doc?.status})`,
  );
  await engine.close();
}
rmSync(dir, { recursive: true, force: true });
