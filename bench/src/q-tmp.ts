import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createMemoryEngine } from '@memory/engine';
import { buildFtsMatch } from '@memory/store';
import { planLexicalQuery } from '../../packages/recall/src/index.js';
import { defaultConfig } from '@memory/core';
import { createGenerator } from './synthetic.js';
const path = '/tmp/q100k.db';
const fresh = !existsSync(path);
const db = new Database(path);
const engine = await createMemoryEngine({ database: { database: db } });
const gen = createGenerator(42);
if (fresh) {
  const inputs = Array.from({ length: 100000 }, () => { const m = gen.memory(); return { agentId: 'bench-agent', content: m.content, type: m.type }; });
  for (let k = 0; k < 10; k++) await engine.rememberMany(inputs.slice(k * 10000, (k + 1) * 10000));
}
const qs = Array.from({ length: 300 }, () => gen.query());
const variants: Record<string, string> = {
  join: `SELECT m.id, bm25(memories_fts) AS s FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ? AND m.agent_id = 'bench-agent' AND m.is_deleted = 0 ORDER BY s LIMIT 10`,
  ftsOnly: `SELECT rowid, bm25(memories_fts) AS s FROM memories_fts WHERE memories_fts MATCH ? ORDER BY s LIMIT 10`,
  ftsRank: `SELECT rowid, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT 10`,
  twoPhase: `WITH top AS (SELECT rowid, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT 200) SELECT m.id, top.rank FROM top JOIN memories m ON m.seq = top.rowid WHERE m.agent_id = 'bench-agent' AND m.is_deleted = 0 ORDER BY top.rank LIMIT 10`,
  count: `SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?`,
};
for (const [name, sql] of Object.entries(variants)) {
  const st = db.prepare(sql);
  const lat: number[] = [];
  for (const q of qs) {
    const plan = planLexicalQuery(q, defaultConfig.recall);
    const match = buildFtsMatch(plan.tokens, 'OR');
    const s = performance.now(); st.all(match); lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  console.log(name.padEnd(10), 'p50', lat[150]?.toFixed(2), 'p95', lat[285]?.toFixed(2));
}
const counts = qs.slice(0, 8).map((q) => { const p = planLexicalQuery(q, defaultConfig.recall); return `${p.tokens.join(' ')}=${(db.prepare('SELECT count(*) n FROM memories_fts WHERE memories_fts MATCH ?').get(buildFtsMatch(p.tokens, 'OR')) as any).n}`; });
console.log(counts.join('\n'));
