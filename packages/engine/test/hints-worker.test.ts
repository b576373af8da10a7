import { createManualClock, createManualScheduler, type GenerateRequest, type LlmProvider } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

/** A scripted model: answers in the messy ways real ones do, and records what it was asked. */
function scriptedLlm(answer: (prompt: string, call: number) => string | Promise<string>) {
  const prompts: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const llm: LlmProvider = {
    async generate(request: GenerateRequest) {
      const prompt = request.messages.map((m) => m.content).join('\n');
      prompts.push(prompt);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        return { text: await answer(prompt, prompts.length) };
      } finally {
        inFlight--;
      }
    },
  };
  return { llm, prompts, maxInFlight: () => maxInFlight };
}

const MESSY = `<think>
The memory is about a standup. I should write questions like "1. When is standup?"
</think>
Sure! Here are 5 questions:
1. What time is the daily meeting?
2) When did the team change the morning sync?
- **Who attends the 9:30 meeting?**
Q4: "Is the morning meeting still at nine?"
5. Which sprint did the schedule change start?`;

async function setup(llm: LlmProvider, config: Record<string, unknown> = {}) {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({ database: { database: db }, clock, scheduler, llm, config });
  const hints = (memoryId: string) =>
    (
      db.prepare('SELECT hint FROM memory_hints WHERE memory_id = ? ORDER BY seq').all(memoryId) as Array<{
        hint: string;
      }>
    ).map((r) => r.hint);
  const jobs = () =>
    db
      .prepare(
        "SELECT status, attempts, result FROM memory_jobs WHERE job_type = 'prospective_index' ORDER BY created_at, rowid",
      )
      .all() as Array<{ status: string; attempts: number; result: string | null }>;
  return { engine, db, clock, scheduler, hints, jobs };
}

describe('prospective hints worker', () => {
  it('asks the model for future questions about each new memory, cleans the output, and makes the memory findable by them', async () => {
    const model = scriptedLlm(() => MESSY);
    const { engine, hints, jobs } = await setup(model.llm);
    const { id } = await engine.remember({ agentId: 'a', content: 'Standup moved to 9:30 starting next sprint' });
    await engine.remember({ agentId: 'a', content: 'Standup moved to 9:30 starting next sprint' }); // dedup: no second job
    expect(jobs()).toEqual([{ status: 'pending', attempts: 0, result: null }]);
    await engine.runDue();
    expect(model.prompts[0]).toContain('Standup moved to 9:30 starting next sprint');
    expect(hints(id)).toEqual([
      'What time is the daily meeting?',
      'When did the team change the morning sync?',
      'Who attends the 9:30 meeting?',
      'Is the morning meeting still at nine?',
      'Which sprint did the schedule change start?',
    ]);
    expect(jobs()[0]).toMatchObject({ status: 'completed', result: '{"hints":5}' });
    const { results } = await engine.recall({ agentId: 'a', query: 'daily meeting' });
    expect(results[0]).toMatchObject({ id, channels: { hint: 1 } });
    expect(results[0]?.score).toBeLessThanOrEqual(0.85);
  });

  it('skips document chunks, and does nothing without an LLM or with hints disabled', async () => {
    const model = scriptedLlm(() => MESSY);
    const off = await setup(model.llm, { hints: { enabled: false } });
    await off.engine.remember({ agentId: 'a', content: 'no hints for me' });
    expect(off.jobs()).toEqual([]);
    const on = await setup(model.llm);
    await on.engine.remember({ agentId: 'a', content: 'chunk text', type: 'document_chunk' });
    expect(on.jobs()).toEqual([]);
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({ database: { database: db } });
    await engine.remember({ agentId: 'a', content: 'no llm configured' });
    expect(db.prepare('SELECT count(*) AS n FROM memory_jobs').get()).toEqual({ n: 0 });
    expect((await engine.diagnostics()).providers.llm).toMatchObject({ available: false });
  });

  it('replaces hints when the content changes, and skips memories forgotten before the job ran', async () => {
    let version = 0;
    const model = scriptedLlm((prompt) =>
      prompt.includes('10:00')
        ? 'What time is standup now that it moved?'
        : `What time is the daily meeting ${++version}?`,
    );
    const { engine, hints, jobs } = await setup(model.llm);
    const { id } = await engine.remember({ agentId: 'a', content: 'Standup is at 9:30' });
    await engine.runDue();
    expect(hints(id)).toEqual(['What time is the daily meeting 1?']);
    await engine.modify({ agentId: 'a', id, content: 'Standup is at 10:00', reason: 'moved' });
    expect(hints(id)).toEqual([]); // old questions no longer apply
    await engine.runDue();
    expect(hints(id)).toEqual(['What time is standup now that it moved?']);
    const gone = await engine.remember({ agentId: 'a', content: 'temporary note' });
    await engine.forget({ agentId: 'a', id: gone.id, reason: 'test' });
    await engine.runDue();
    expect(jobs().at(-1)).toMatchObject({ status: 'completed', result: '{"hints":0,"skipped":"memory not found"}' });
  });

  it('retries when the model fails, and a model that answers nothing usable changes nothing', async () => {
    let calls = 0;
    const model = scriptedLlm(() => {
      calls++;
      if (calls === 1) throw new Error('model crashed');
      return '<think>I cannot think of any</think>\nHere are some questions:';
    });
    const { engine, hints, jobs, scheduler } = await setup(model.llm, { queue: { retryBaseMs: 1000 } });
    const { id } = await engine.remember({ agentId: 'a', content: 'Budget approved for Q3' });
    await engine.runDue();
    expect(jobs()[0]).toMatchObject({ status: 'pending', attempts: 1 });
    await scheduler.advance(2000);
    await engine.runDue();
    expect(jobs()[0]).toMatchObject({
      status: 'completed',
      result: '{"hints":0,"skipped":"no usable hints in the model output"}',
    });
    expect(hints(id)).toEqual([]);
  });

  it('runs under the shared LLM admission limit', async () => {
    const model = scriptedLlm(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'What is this memory about, exactly?';
    });
    const { engine, jobs } = await setup(model.llm, { queue: { llmConcurrency: 2 } });
    await engine.rememberMany({
      agentId: 'a',
      memories: Array.from({ length: 8 }, (_, i) => ({ content: `note number ${i}` })),
    });
    await engine.runDue();
    expect(jobs().every((j) => j.status === 'completed')).toBe(true);
    expect(model.maxInFlight()).toBeLessThanOrEqual(2);
  });
});
