import { SqlExecutor } from '@memory/store';
const times = new Map<string, { n: number; ms: number }>();
for (const m of ['get', 'run', 'all'] as const) {
  const orig = (SqlExecutor.prototype as any)[m];
  (SqlExecutor.prototype as any)[m] = function (q: any) { const t = performance.now(); try { return orig.call(this, q); } finally { const k = q.sql.replace(/\s+/g, ' ').slice(0, 90); const e = times.get(k) ?? { n: 0, ms: 0 }; e.n++; e.ms += performance.now() - t; times.set(k, e); } };
}
process.on('beforeExit', () => { const rows = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 18); for (const [k, v] of rows) console.log(v.ms.toFixed(0).padStart(6), 'ms', String(v.n).padStart(6), (1000 * v.ms / v.n).toFixed(1).padStart(6), 'us', k); });
await import('./_prof-write.js');
