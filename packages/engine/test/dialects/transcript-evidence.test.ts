import {
  createManualClock,
  createManualScheduler,
  type GenerateRequest,
  type GenerateResult,
  type LlmProvider,
} from '@memory/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { engineBackends } from '../support/backends.js';

// Transcripts as evidence, on SQLite, PGlite and the real server: recall's excerpts of the sessions
// behind its results (`expand`), and a Dreaming pass whose `search_evidence` finds completed
// transcript turns (another agent's turns and unfinished sessions stay out) and cites one.

const T0 = Date.UTC(2026, 0, 1);
const backends = await engineBackends();

const tool = (name: string, args: unknown, n: number): GenerateResult => ({
  text: '<think>next</think>',
  toolCalls: [{ id: `c${n}`, name, arguments: JSON.stringify(args) }],
  usage: { inputTokens: 10, outputTokens: 5 },
});

describe.each(backends)('transcripts as evidence on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  // A cold PGlite (the first test on it) takes most of a test's default time under load.
  it.skipIf(backend.skip)(
    'expands the sessions behind recall results into bounded excerpts',
    { timeout: 120_000 },
    async () => {
      const clock = createManualClock(T0);
      const engine = await backend.open({
        clock,
        scheduler: createManualScheduler(clock),
        config: { recall: { expand: { maxSessions: 3, excerptChars: 90 } } },
      });
      await engine.transcripts.append({
        agentId: 'a',
        sessionKey: 'trip',
        turns: [
          { role: 'user', content: 'hello there, a long preamble about nothing in particular at all' },
          { role: 'user', content: 'we are planning the Lisbon offsite' },
          { role: 'assistant', content: 'noted. Budget?' },
          { role: 'user', content: 'keep it under 5k and book the riverside hotel' },
        ],
      });
      await engine.transcripts.append({
        agentId: 'b',
        sessionKey: 'trip',
        turns: [{ role: 'user', content: 'b private Lisbon turn' }],
      });
      const { id } = await engine.remember({
        agentId: 'a',
        content: 'Lisbon offsite budget is 5k',
        source: { type: 'transcript', id: 'trip' },
      });
      await engine.remember({
        agentId: 'b',
        content: 'Lisbon budget for b',
        source: { type: 'transcript', id: 'trip' },
      });

      const plain = await engine.recall({ agentId: 'a', query: 'Lisbon budget' });
      expect(plain.expansions ?? []).toEqual([]);
      expect(plain.drillDown).toContainEqual(expect.objectContaining({ kind: 'expand_session', sessionKey: 'trip' }));

      const expanded = await engine.recall({ agentId: 'a', query: 'Lisbon budget', expand: true });
      expect(expanded.results.map((r) => r.id)).toEqual([id]);
      // The turn sharing most query words, then its neighbours while 90 characters last: the
      // preamble does not fit, so the excerpt says it is truncated.
      expect(expanded.expansions).toEqual([
        {
          sessionKey: 'trip',
          memoryIds: [id],
          excerpt: 'user: we are planning the Lisbon offsite\nassistant: noted. Budget?',
          truncated: true,
        },
      ]);
      expect(expanded.drillDown.some((d) => d.kind === 'expand_session')).toBe(false);
      const other = await engine.recall({ agentId: 'b', query: 'Lisbon budget', expand: true });
      expect(other.expansions?.map((e) => e.excerpt)).toEqual(['user: b private Lisbon turn']);
    },
  );

  it.skipIf(backend.skip)(
    'lets a Dreaming pass find completed transcript turns and cite them',
    { timeout: 120_000 },
    async () => {
      const clock = createManualClock(T0);
      const seen: unknown[] = [];
      let n = 0;
      const llm: LlmProvider = {
        async generate(request: GenerateRequest) {
          n++;
          if (n === 1) return tool('search_evidence', { query: 'Atlas vendor' }, n);
          if (n === 2) {
            seen.push(JSON.parse(String(request.messages.at(-1)?.content)));
            return tool(
              'apply_operations',
              {
                operations: [
                  {
                    operation: 'create_entity',
                    payload: { name: 'Project Atlas', entityType: 'project' },
                    evidence: [{ sourceRef: 'transcript:done', quote: 'Atlas launch moved to March' }],
                  },
                ],
              },
              n,
            );
          }
          return { text: 'Recorded Project Atlas.', usage: {} };
        },
      };
      const engine = await backend.open({
        clock,
        scheduler: createManualScheduler(clock),
        llm,
        config: { dreaming: { enabled: true } },
      });
      await engine.transcripts.append({
        agentId: 'a',
        sessionKey: 'done',
        turns: [
          { role: 'user', content: 'The Atlas launch moved to March because the vendor slipped.' },
          { role: 'assistant', content: 'Understood.' },
        ],
      });
      await engine.transcripts.complete({ agentId: 'a', sessionKey: 'done' });
      await engine.transcripts.append({
        agentId: 'a',
        sessionKey: 'open',
        turns: [{ role: 'user', content: 'Atlas vendor call still going' }],
      });
      await engine.transcripts.append({
        agentId: 'b',
        sessionKey: 'theirs',
        turns: [{ role: 'user', content: 'Atlas vendor secrets of agent b' }],
      });
      await engine.transcripts.complete({ agentId: 'b', sessionKey: 'theirs' });

      const pass = await engine.dreaming.runPass({ agentId: 'a' });
      expect(pass).toMatchObject({ status: 'completed', mutations: { applied: 1, rejected: 0 } });
      // The tool's answer as the model read it: the completed session's matching turn only.
      expect(seen).toEqual([
        [{ sourceRef: 'transcript:done', text: 'The Atlas launch moved to March because the vendor slipped.' }],
      ]);
      expect((await engine.graph.entities({ agentId: 'a' })).items.map((e) => e.name)).toEqual(['Project Atlas']);
    },
  );
});
