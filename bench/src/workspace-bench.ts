// The workspace index (issue 17): a generated folder of mixed files (text, Markdown, HTML, small PDFs
// and DOCX written at run time) synced by a folder connector. Reports the first sync's throughput
// (files/s, MB/s; the scan alone and until every document is ingested), a no-change re-sync's time,
// and the longest event-loop stall during each, with the load average beside every timing.
//   npm run bench:workspace
//   npm run bench:workspace -- --files 500 --target 50

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createMemoryEngine, type MemoryEngine } from '@memory/engine';
import { strToU8, zipSync } from 'fflate';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { watchLoop } from './loop-watch.js';
import { fmt } from './stats.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    files: { type: 'string', default: '2000' },
    target: { type: 'string', default: '50' },
    keep: { type: 'boolean', default: false },
  },
});
const FILES = Number(values.files);
const targetMs = Number(values.target);

/** This thread's CPU and run-queue wait times in ms, from /proc (Linux); undefined elsewhere. */
interface Stall {
  /** The longest wall time the loop was held (a 1 ms timer's longest gap, less the 1 ms). */
  readonly longest: number;
  /** Of that, the time this thread waited for a core (a loaded machine's share). */
  readonly waited: number | undefined;
  /** The most CPU this thread used between two loop turns: the longest synchronous slice. */
  readonly slice: number | undefined;
  /** Gaps over the target. */
  readonly over: number;
}

/** Watches the event loop as bench:event-loop does: stall, its wait for a core, and the longest slice. */
function watchStalls(): { stop(): Stall } {
  const watch = watchLoop(targetMs);
  return {
    stop: () => ({ longest: watch.stop(), waited: watch.stallWait(), slice: watch.slice(), over: watch.over() }),
  };
}

const describeStall = (s: Stall): string =>
  `longest stall ${fmt(s.longest, 1)} ms ${s.longest <= targetMs ? 'ok' : 'OVER'} (waited for a core ${s.waited === undefined ? '?' : fmt(s.waited, 1)} ms; longest synchronous slice ${s.slice === undefined ? '?' : fmt(s.slice, 1)} ms ${s.slice === undefined || s.slice <= targetMs ? 'ok' : 'OVER'}; ${s.over} stalls over ${targetMs} ms)`;

const load = (): string => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' })
      .trim()
      .replace(/^.*load average/, 'load average');
  } catch {
    return `load average: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`;
  }
};

const TOPICS = ['budget', 'hiring', 'vendor', 'roadmap', 'security', 'travel', 'onboarding', 'research'];
const sentence = (i: number, s: number) =>
  `Note ${i}.${s}: the ${TOPICS[(i + s) % TOPICS.length]} review for project ${i % 97} records decision ${s} and its owner.`;
const body = (i: number, sentences: number) => Array.from({ length: sentences }, (_, s) => sentence(i, s)).join(' ');

async function makePdf(i: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < 2; p++) {
    const page = doc.addPage([612, 792]);
    for (let l = 0; l < 12; l++) page.drawText(sentence(i, p * 12 + l), { x: 30, y: 760 - l * 14, size: 9, font });
  }
  return doc.save();
}

function makeDocx(i: number): Uint8Array {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const paragraphs = Array.from({ length: 12 }, (_, p) => `<w:p><w:r><w:t>${sentence(i, p)}</w:t></w:r></w:p>`);
  return zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    'word/document.xml': strToU8(
      `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>${paragraphs.join('')}</w:body></w:document>`,
    ),
  });
}

/** Writes the folder: 35% text, 30% Markdown, 20% HTML, 8% PDF, 7% DOCX, in 20 directories. */
async function writeFolder(root: string): Promise<{ bytes: number; kinds: Record<string, number> }> {
  let bytes = 0;
  const kinds: Record<string, number> = {};
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `team-${i % 20}`, `q${i % 4}`);
    mkdirSync(dir, { recursive: true });
    const r = i % 100;
    let name: string;
    let data: string | Uint8Array;
    if (r < 35) [name, data] = [`n${i}.txt`, body(i, 8 + (i % 30))];
    else if (r < 65)
      [name, data] = [`n${i}.md`, `# Note ${i}\n\n${body(i, 6)}\n\n## Details\n\n${body(i + 1, 10 + (i % 20))}`];
    else if (r < 85)
      [name, data] = [
        `n${i}.html`,
        `<html><head><title>Note ${i}</title></head><body><nav>Home | Teams</nav><div class="cookie-banner">We use cookies</div><article><h1>Note ${i}</h1><p>${body(i, 10)}</p><h2>More</h2><p>${body(i + 2, 8)}</p></article><footer>&copy; Example</footer></body></html>`,
      ];
    else if (r < 93) [name, data] = [`n${i}.pdf`, await makePdf(i)];
    else [name, data] = [`n${i}.docx`, makeDocx(i)];
    writeFileSync(join(dir, name), data);
    bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    const ext = name.slice(name.lastIndexOf('.') + 1);
    kinds[ext] = (kinds[ext] ?? 0) + 1;
  }
  return { bytes, kinds };
}

/** Polls until the connector's sync is over (and, with `ingested`, every document it queued is done). */
async function waitFor(engine: MemoryEngine, id: string, ingested: boolean, onScanned?: () => void): Promise<void> {
  let scanned = false;
  for (;;) {
    const s = await engine.connectors.status({ agentId: 'bench', id });
    if (!s) throw new Error('connector gone');
    if (!scanned && !s.sync.running) {
      scanned = true;
      onScanned?.();
    }
    const open = Object.entries(s.documents).some(([k, n]) => n > 0 && !['done', 'failed', 'deleted'].includes(k));
    if (!s.sync.running && (!ingested || !open)) return;
    if (s.status === 'error') throw new Error(`sync failed: ${s.lastError}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const work = mkdtempSync(join(os.tmpdir(), 'memory-workspace-bench-'));
const root = join(work, 'folder');
console.log(`workspace bench: ${FILES} files; target: longest stall ≤ ${targetMs} ms`);
console.log(`machine: ${os.cpus().length} cores; ${load()}`);
const generated = performance.now();
const folder = await writeFolder(root);
console.log(
  `generated ${FILES} files, ${fmt(folder.bytes / 1e6, 2)} MB (${Object.entries(folder.kinds)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')}) in ${fmt((performance.now() - generated) / 1000, 1)} s`,
);

{
  const idle = watchStalls();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  console.log(`idle baseline (nothing running, 3 s): ${describeStall(idle.stop())}; ${load()}`);
}

const engine = await createMemoryEngine({
  database: { path: join(work, 'bench.db') },
  config: { queue: { pollIntervalMs: 20 } },
});
const connector = await engine.connectors.register({ agentId: 'bench', kind: 'folder', root });
await engine.start();

let watch = watchStalls();
let started = performance.now();
let scanSeconds = 0;
await engine.connectors.sync({ agentId: 'bench', id: connector.id });
await waitFor(engine, connector.id, true, () => {
  scanSeconds = (performance.now() - started) / 1000;
});
const firstSeconds = (performance.now() - started) / 1000;
let stall = watch.stop();
const first = await engine.connectors.status({ agentId: 'bench', id: connector.id });
console.log(
  `first sync: scan ${fmt(scanSeconds, 1)} s (${fmt(FILES / scanSeconds, 0)} files/s); until ingested ${fmt(firstSeconds, 1)} s → ${fmt(FILES / firstSeconds, 1)} files/s, ${fmt(folder.bytes / 1e6 / firstSeconds, 2)} MB/s; ${describeStall(stall)}; ${load()}`,
);
console.log(`  stats ${JSON.stringify(first?.sync.stats)}; documents ${JSON.stringify(first?.documents)}`);

watch = watchStalls();
started = performance.now();
await engine.connectors.sync({ agentId: 'bench', id: connector.id });
await waitFor(engine, connector.id, true);
const resyncSeconds = (performance.now() - started) / 1000;
stall = watch.stop();
const again = await engine.connectors.status({ agentId: 'bench', id: connector.id });
console.log(
  `no-change re-sync: ${fmt(resyncSeconds, 2)} s (${fmt(FILES / resyncSeconds, 0)} files/s); ${describeStall(stall)}; ${load()}`,
);
console.log(`  stats ${JSON.stringify(again?.sync.stats)}`);
const hits = await engine.documents.search({ agentId: 'bench', query: 'security review decision', limit: 3 });
console.log(
  `search sample: ${hits.map((h) => `${h.document.path}${h.location?.page ? ` p. ${h.location.page}` : ''}`).join('; ')}`,
);
await engine.close();
if (!values.keep) rmSync(work, { recursive: true, force: true });
