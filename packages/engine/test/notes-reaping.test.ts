import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

const DAY = 86_400_000;

describe('note reaping', () => {
  it('archives active notes not updated for notes.reapAfterDays, with an audited reason; resolved ones stay', async () => {
    const { engine, clock } = await createTestEngine();
    const stale = await engine.notes.create({ agentId: 'a', title: 'Old', content: 'stale follow-up' });
    const touched = await engine.notes.create({ agentId: 'a', title: 'Touched', content: 'kept alive' });
    const resolved = await engine.notes.create({ agentId: 'a', title: 'Done', content: 'handled long ago' });
    const other = await engine.notes.create({ agentId: 'b', title: 'Other agent', content: 'stale too' });
    await engine.notes.resolve({ agentId: 'a', id: resolved.id });
    clock.advance(30 * DAY);
    await engine.notes.update({ agentId: 'a', id: touched.id, content: 'kept alive, updated' });
    clock.advance(30 * DAY);
    // Exactly 60 days is not stale yet: "not updated for 60 days" means older than the cut.
    expect((await engine.maintenance.preview()).reap.notes).toMatchObject({ afterDays: 60, candidates: 0 });
    clock.advance(1);
    expect((await engine.maintenance.preview()).reap.notes).toEqual({
      afterDays: 60,
      staleBefore: clock.now() - 60 * DAY,
      candidates: 2,
    });
    const [report] = await engine.maintenance.run({ task: 'reap' });
    expect(report).toMatchObject({ task: 'reap', done: true, archivedNotes: 2 });
    const status = async (agentId: string, id: string) => (await engine.notes.get({ agentId, id })).status;
    expect(await status('a', stale.id)).toBe('archived');
    expect(await status('b', other.id)).toBe('archived');
    expect(await status('a', touched.id)).toBe('active');
    expect(await status('a', resolved.id)).toBe('resolved');
    const last = (await engine.notes.history({ agentId: 'a', id: stale.id })).at(-1);
    expect(last).toMatchObject({
      event: 'archived',
      actor: 'engine',
      actorType: 'engine',
      reason: 'reaped: not updated for 60 days',
      metadata: { task: 'reap', afterDays: 60, lastUpdatedAt: clock.now() - 60 * DAY - 1 },
      before: { status: 'active' },
      after: { status: 'archived', archivedAt: clock.now() },
    });
    // Nothing left: a second run archives nothing and writes no events.
    const [again] = await engine.maintenance.run({ task: 'reap' });
    expect(again).toMatchObject({ archivedNotes: 0 });
    expect((await engine.notes.history({ agentId: 'a', id: stale.id })).length).toBe(2);
    await engine.close();
  });

  it('follows the configured notes.reapAfterDays', async () => {
    const { engine, clock } = await createTestEngine({ config: { notes: { reapAfterDays: 7 } } });
    const n = await engine.notes.create({ agentId: 'a', title: 'Week', content: 'short-lived' });
    clock.advance(8 * DAY);
    expect((await engine.maintenance.preview()).reap.notes.candidates).toBe(1);
    await engine.maintenance.run({ task: 'reap' });
    expect((await engine.notes.get({ agentId: 'a', id: n.id })).status).toBe('archived');
    await engine.close();
  });

  it('runs on the maintenance schedule', async () => {
    const { engine, clock } = await createTestEngine();
    const n = await engine.notes.create({ agentId: 'a', title: 'Scheduled', content: 'to be reaped by the schedule' });
    // The first check starts the clock; a run is due a reap interval later.
    await engine.runDue();
    clock.advance(61 * DAY);
    await engine.runDue();
    expect((await engine.notes.get({ agentId: 'a', id: n.id })).status).toBe('archived');
    const reap = (await engine.diagnostics()).maintenance.tasks.find((t) => t.task === 'reap:run');
    expect(reap).toMatchObject({ lastRunAt: clock.now(), lastReport: { archivedNotes: 1 } });
    await engine.close();
  });

  it('an invalid setting is refused', async () => {
    await expect(createTestEngine({ config: { notes: { reapAfterDays: 0 } } })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
  });
});
