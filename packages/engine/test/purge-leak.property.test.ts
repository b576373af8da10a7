import { createHash } from 'node:crypto';
import { selectEvidence } from '@memory/dreaming';
import { openStore } from '@memory/store';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

const DAY = 86_400_000;
const AGENTS = ['a', 'b'] as const;
type Agent = (typeof AGENTS)[number];

// The text an op writes is made from its position in the run (hashed into words of letters), so no
// two texts share a 12-character window, however fast-check shrinks the run; `words` only says
// how many words.
const words = fc.integer({ min: 3, max: 6 });
function uniqueText(op: number, count: number): string {
  const hex = createHash('sha256').update(`purge-leak:${op}`).digest('hex');
  const letters = [...hex].map((c) => String.fromCharCode(97 + (Number.parseInt(c, 16) % 26))).join('');
  return Array.from({ length: count }, (_, i) => letters.slice(i * 9, i * 9 + 9)).join(' ');
}
const agent = fc.constantFrom<Agent>(...AGENTS);

type Op =
  | { kind: 'remember'; agent: Agent; text: number }
  | { kind: 'modify'; pick: number; text: number }
  | { kind: 'forget'; pick: number }
  | { kind: 'transcript'; agent: Agent; text: number }
  | { kind: 'document'; agent: Agent; text: number }
  | { kind: 'advance'; days: number }
  | { kind: 'purge' }
  | { kind: 'erase'; agent: Agent };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('remember' as const), agent, text: words }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('modify' as const), pick: fc.nat(), text: words }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('forget' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transcript' as const), agent, text: words }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('document' as const), agent, text: words }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'purge' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), agent }) },
);

interface Known {
  id: string;
  agent: Agent;
  /** Every text the memory ever held. */
  texts: string[];
}

/** Every 12-character window of a text (the text itself when shorter). */
const windows = (text: string): string[] =>
  text.length <= 12 ? [text] : Array.from({ length: text.length - 11 }, (_, i) => text.slice(i, i + 12));

const json = (value: unknown): string => JSON.stringify(value) ?? '';

async function collect(lines: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const line of lines) out += line;
  return out;
}

/** What every read path returns for an agent, as text (recall probes with `probes` as queries). */
async function readEverything(
  engine: MemoryEngine,
  db: InstanceType<typeof Database>,
  agentId: Agent,
  known: readonly Known[],
  probes: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  // Telemetry first: the recall probes below record their (purged) query text there.
  out.push(json(await engine.telemetry.list({ agentId })));
  out.push(json(await engine.list({ agentId, includeForgotten: true, limit: 500 })));
  for (const m of known) {
    out.push(json(await engine.getMemory({ agentId, id: m.id, includeDeleted: true })));
    out.push(json(await engine.history({ agentId, id: m.id }).catch(() => null)));
  }
  const sessions = await engine.transcripts.list({ agentId });
  out.push(json(sessions));
  for (const s of sessions) out.push(json(await engine.transcripts.get({ agentId, sessionKey: s.sessionKey })));
  const documents = await engine.documents.list({ agentId });
  out.push(json(documents));
  out.push(json(await engine.memoryHead({ agentId })));
  out.push(await collect(engine.export({ agentId })));
  const store = await openStore({ database: db });
  out.push(json(store.read((sql) => selectEvidence(sql, agentId, { budgetTokens: 100_000, fragmentChars: 2000 }))));
  for (const query of probes) {
    const q = query.split(' ').slice(0, 3).join(' ');
    out.push(json(await engine.recall({ agentId, query: q, expand: true, limit: 50 })));
    out.push(json(await engine.transcripts.search({ agentId, query: q, completedOnly: false })));
  }
  return out;
}

describe('purged and erased content never comes back (property)', () => {
  it('no read path returns purged or erased content, or any 12-character piece of it', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 14 }), async (ops) => {
        const db = new Database(':memory:');
        const { engine, clock } = await createTestEngine({
          database: { database: db },
          embedder: createBagOfWordsEmbedder(64),
          config: { telemetry: { recallQa: true } },
        });
        const known: Known[] = [];
        const erasedTexts: Record<Agent, string[]> = { a: [], b: [] };
        const liveTexts: Record<Agent, string[]> = { a: [], b: [] };
        let session = 0;
        for (const [i, o] of ops.entries()) {
          const text = 'text' in o ? uniqueText(i, o.text) : '';
          if (o.kind === 'remember') {
            const { id } = await engine.remember({ agentId: o.agent, content: text });
            known.push({ id, agent: o.agent, texts: [text] });
          } else if ((o.kind === 'modify' || o.kind === 'forget') && known.length > 0) {
            const m = known[o.pick % known.length] as Known;
            const live = await engine.getMemory({ agentId: m.agent, id: m.id });
            if (!live) continue;
            if (o.kind === 'forget') await engine.forget({ agentId: m.agent, id: m.id, reason: 'x' });
            else {
              await engine.modify({ agentId: m.agent, id: m.id, reason: 'x', content: text });
              m.texts.push(text);
            }
          } else if (o.kind === 'transcript') {
            const sessionKey = `s${session++}`;
            await engine.transcripts.append({ agentId: o.agent, sessionKey, turns: [{ role: 'user', content: text }] });
            await engine.transcripts.complete({ agentId: o.agent, sessionKey });
            liveTexts[o.agent].push(text);
          } else if (o.kind === 'document') {
            await engine.documents.add({ agentId: o.agent, content: text, title: 'doc' });
            await engine.runDue();
            liveTexts[o.agent].push(text);
          } else if (o.kind === 'advance') clock.advance(o.days * DAY);
          else if (o.kind === 'purge') await engine.maintenance.run({ task: 'purge' });
          else if (o.kind === 'erase') {
            await engine.erase({ agentId: o.agent });
            erasedTexts[o.agent].push(
              ...liveTexts[o.agent],
              ...known.filter((m) => m.agent === o.agent).flatMap((m) => m.texts),
            );
            liveTexts[o.agent] = [];
          }
        }
        // Purged: the memories whose tombstone exists (their every text, old versions included).
        const purged = new Set(
          (db.prepare('SELECT memory_id FROM memory_tombstones').all() as Array<{ memory_id: string }>).map(
            (r) => r.memory_id,
          ),
        );
        for (const agentId of AGENTS) {
          const gone = [
            ...known.filter((m) => m.agent === agentId && purged.has(m.id)).flatMap((m) => m.texts),
            ...erasedTexts[agentId],
          ];
          // Every text is unique to the op that wrote it, so a gone text cannot have been written again.
          const check = gone;
          if (check.length === 0) continue;
          checked += check.length;
          const outputs = await readEverything(engine, db, agentId, known, check);
          for (const text of check)
            for (const piece of windows(text))
              for (const output of outputs)
                expect(output.includes(piece), `"${piece}" of a gone text came back`).toBe(false);
        }
        await engine.close();
      }),
      {
        numRuns: 25,
        // Runs that surely purge and erase, whatever the random ones do.
        examples: [
          [
            [
              { kind: 'remember', agent: 'a', text: 4 },
              { kind: 'remember', agent: 'b', text: 5 },
              { kind: 'modify', pick: 0, text: 3 },
              { kind: 'forget', pick: 0 },
              { kind: 'transcript', agent: 'b', text: 4 },
              { kind: 'document', agent: 'b', text: 6 },
              { kind: 'advance', days: 31 },
              { kind: 'purge' },
              { kind: 'erase', agent: 'b' },
            ],
          ],
        ],
      },
    );
    // The property was exercised: gone texts were looked for.
    expect(checked).toBeGreaterThan(3);
  }, 240_000);
});
