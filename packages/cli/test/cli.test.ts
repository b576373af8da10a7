import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBin } from './build-bin.js';
import { ANSI, makeDeadJob, runBin, tempDir, withEngine, writeExport } from './helpers.js';

const tmp = tempDir();
const db = join(tmp.dir, 'memory.db');
let bin: string;
let removeBin: () => void;
let teaId: string;
let pinnedId: string;
let deadJobId: string;

const memory = (...args: string[]) => runBin(bin, ['--db', db, ...args]);

beforeAll(async () => {
  ({ bin, remove: removeBin } = await buildBin());
  await withEngine(db, async (engine) => {
    teaId = (
      await engine.remember({
        agentId: 'alice',
        content: 'Alice prefers green tea without sugar',
        type: 'preference',
        tags: ['drinks'],
      })
    ).id;
    await engine.modify({
      agentId: 'alice',
      id: teaId,
      reason: 'she takes honey now',
      content: 'Alice prefers green tea with honey',
    });
    pinnedId = (await engine.remember({ agentId: 'alice', content: 'Alice is allergic to peanuts', pinned: true })).id;
    await engine.remember({ agentId: 'bob', content: 'Bob prefers black coffee' });
    await engine.transcripts.append({
      agentId: 'alice',
      sessionKey: 'chat-1',
      turns: [
        { role: 'user', content: 'I moved to Lisbon.' },
        { role: 'assistant', content: 'Noted.' },
      ],
    });
    await engine.documents.add({
      agentId: 'alice',
      content: 'Runbook: restart the queue with care.',
      title: 'Runbook',
    });
    deadJobId = await makeDeadJob(engine);
  });
}, 180_000);
afterAll(() => {
  removeBin?.();
  tmp.remove();
});

describe('memory recall', () => {
  it('prints what formatRecall renders, ids included, without colors when piped', async () => {
    const r = await memory('recall', 'green tea', '--agent', 'alice');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('POSSIBLY RELATED');
    expect(r.stdout).toContain(`Alice prefers green tea with honey [id: ${teaId}]`);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('colors the same output when colors are forced, and --explain adds channel scores', async () => {
    const r = await runBin(bin, ['--db', db, 'recall', 'green tea', '--agent', 'alice', '--explain'], {
      FORCE_COLOR: '1',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(ANSI);
    expect(r.stdout).toContain('EXPLAIN');
    expect(r.stdout).toMatch(/lexical \d\.\d\d/);
  });

  it('gives --json the whole response, and stays in the scope it was given', async () => {
    const r = await memory('--json', 'recall', 'green tea', '--agent', 'alice');
    const response = JSON.parse(r.stdout) as { results: Array<{ id: string }> };
    expect(response.results.map((x) => x.id)).toContain(teaId);
    const other = await memory('recall', 'green tea honey', '--agent', 'bob');
    expect(other.stdout.trim()).toBe('NO RELEVANT MEMORIES');
  });

  it('exits 2 without an agent, and takes MEMORY_AGENT', async () => {
    const r = await memory('recall', 'green tea');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--agent');
    const env = await runBin(bin, ['--db', db, 'recall', 'green tea'], { MEMORY_AGENT: 'alice' });
    expect(env.stdout).toContain(teaId);
  });
});

describe('memory show and forget', () => {
  it('shows a memory with its history', async () => {
    const r = await memory('show', teaId, '--agent', 'alice');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('Alice prefers green tea with honey');
    expect(r.stdout).toMatch(/updated\s+alice \(agent\)\s+she takes honey now/);
  });

  it("answers another agent's memory exactly like a missing one (exit 3)", async () => {
    const foreign = await memory('show', teaId, '--agent', 'bob');
    const missing = await memory('show', 'no-such-id', '--agent', 'bob');
    expect(foreign.code).toBe(3);
    expect(missing.code).toBe(3);
    expect(foreign.stderr.replace(teaId, 'X')).toBe(missing.stderr.replace('no-such-id', 'X'));
    const json = await memory('--json', 'show', teaId, '--agent', 'bob');
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'NOT_FOUND', message: `no memory ${teaId} in agent bob` },
    });
  });

  it('forgets as an operator, recorded in history; a pinned memory needs --force (exit 2)', async () => {
    const pinned = await memory('forget', pinnedId, '--agent', 'alice');
    expect(pinned.code).toBe(2);
    expect(pinned.stderr).toContain('PINNED');
    const forced = await memory('--json', 'forget', pinnedId, '--agent', 'alice', '--force', '--reason', 'outdated');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual({ id: pinnedId, forgotten: true });
    const shown = JSON.parse((await memory('--json', 'show', pinnedId, '--agent', 'alice')).stdout) as {
      memory: { deleted: boolean };
      history: Array<{ event: string; actorType: string; reason: string | null }>;
    };
    expect(shown.memory.deleted).toBe(true);
    expect(shown.history.at(-1)).toMatchObject({ event: 'deleted', actorType: 'operator', reason: 'outdated' });
    const again = await memory('forget', pinnedId, '--agent', 'alice');
    expect(again.stdout).toContain('already forgotten');
  });
});

describe('memory list, stats and doctor', () => {
  it("lists a scope's sessions and documents as aligned columns", async () => {
    const r = await memory('list', '--agent', 'alice');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^SESSIONS \(1\)$/m);
    expect(r.stdout).toMatch(/^chat-1\s+2\s+open\s+/m);
    expect(r.stdout).toMatch(/^DOCUMENTS \(1\)$/m);
    expect(r.stdout).toContain('Runbook');
    const bob = JSON.parse((await memory('--json', 'list', '--agent', 'bob')).stdout) as {
      sessions: unknown[];
      documents: unknown[];
    };
    expect(bob).toMatchObject({ sessions: [], documents: [] });
  });

  it('stats count the store and a scope', async () => {
    const r = await memory('--json', 'stats', '--agent', 'alice');
    expect(r.code).toBe(0);
    const stats = JSON.parse(r.stdout) as {
      database: { bytes: number };
      queue: { dead: number };
      scope: { sessions: { total: number }; documents: { total: number } };
    };
    expect(stats.database.bytes).toBeGreaterThan(0);
    expect(stats.queue.dead).toBe(1);
    expect(stats.scope).toMatchObject({ sessions: { total: 1 }, documents: { total: 1 } });
  });

  it('doctor fails on the dead job (exit 4) and names the repair', async () => {
    const r = await memory('doctor');
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^FAIL\s+dead jobs\s+1 test-always-fails/m);
    expect(r.stdout).toMatch(/^ok\s+database/m);
  });

  it('exits 3 when the database file does not exist, without creating it', async () => {
    const missing = join(tmp.dir, 'nothing-here.db');
    const r = await runBin(bin, ['--db', missing, 'stats']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no database at');
    expect(existsSync(missing)).toBe(false);
  });
});

describe('memory jobs', () => {
  it('shows health and the dead job, repairs only with --apply', async () => {
    const overview = await memory('jobs');
    expect(overview.code).toBe(4);
    expect(overview.stdout).toMatch(/^test-always-fails\s+0\s+0\s+0\s+0\s+1\s/m);
    expect(overview.stdout).toContain(deadJobId);

    const dry = JSON.parse((await memory('--json', 'jobs', 'requeue-dead')).stdout) as {
      applied: boolean;
      matched: number;
    };
    expect(dry).toMatchObject({ applied: false, matched: 1 });
    expect((await memory('jobs')).code).toBe(4);

    const applied = await memory('--json', 'jobs', 'requeue-dead', '--apply', '--type', 'test-always-fails');
    expect(JSON.parse(applied.stdout)).toMatchObject({ applied: true, matched: 1 });
    const after = JSON.parse((await memory('--json', 'jobs')).stdout) as {
      queue: Array<{ jobType: string; dead: number; pending: number }>;
    };
    expect(after.queue.find((q) => q.jobType === 'test-always-fails')).toMatchObject({ dead: 0, pending: 1 });
  });
});

describe('memory import (piped)', () => {
  it('imports a file into the scope with final counters and no progress bar', async () => {
    const file = join(tmp.dir, 'export.jsonl');
    writeExport(file, 30);
    const r = await memory('import', file, '--agent', 'carol');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status\s+completed$/m);
    expect(r.stdout).toMatch(/^imported\s+30$/m);
    expect(r.stderr).not.toContain('importing');
    const sessions = JSON.parse(
      (await memory('--json', 'list', '--sessions', '--agent', 'carol', '--limit', '100')).stdout,
    ).sessions as unknown[];
    expect(sessions).toHaveLength(30);
  });

  it('exits 4 when lines were rejected, and reports duplicates on a replay', async () => {
    const file = join(tmp.dir, 'mixed.jsonl');
    writeExport(file, 5, 2);
    const first = await memory('--json', 'import', file, '--agent', 'dave');
    expect(first.code).toBe(4);
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'completed_with_rejections',
      counters: { total: 7, imported: 5, rejected: 2, duplicate: 0, pending: 0 },
    });
    const replay = JSON.parse((await memory('--json', 'import', file, '--agent', 'dave')).stdout) as {
      counters: { duplicate: number; imported: number };
    };
    expect(replay.counters).toMatchObject({ duplicate: 5, imported: 0 });
  });

  it('exits 3 for a missing file', async () => {
    const r = await memory('import', join(tmp.dir, 'nope.jsonl'), '--agent', 'carol');
    expect(r.code).toBe(3);
  });
});

describe('memory export', () => {
  it("writes the scope as memory-export JSONL that import reads back, without another agent's data", async () => {
    const r = await memory('export', '--agent', 'alice');
    expect(r.code).toBe(0);
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ format: 'memory-export', version: 1 });
    expect(r.stdout).toContain('Alice prefers green tea with honey');
    expect(r.stdout).not.toContain('Bob prefers black coffee');
    expect(r.stderr).toContain(`exported ${records.length} records of agent alice`);
    const file = join(tmp.dir, 'alice.jsonl');
    writeFileSync(file, r.stdout);
    // A scope moves between files: into a fresh database, under the same agent.
    const other = (...args: string[]) => runBin(bin, ['--db', join(tmp.dir, 'moved.db'), ...args]);
    const back = JSON.parse((await other('--json', 'import', file, '--agent', 'alice')).stdout) as {
      status: string;
      counters: { rejected: number; imported: number };
    };
    expect(back).toMatchObject({ status: 'completed', counters: { rejected: 0, imported: records.length } });
    const again = await other('export', '--agent', 'alice');
    expect(again.stdout.trim().split('\n').length).toBe(records.length);
    const shown = JSON.parse((await other('--json', 'recall', 'green tea honey', '--agent', 'alice')).stdout) as {
      results: { content: string }[];
    };
    expect(shown.results.map((x) => x.content)).toContain('Alice prefers green tea with honey');
  });
});

describe('usage', () => {
  it('documents the exit codes in --help (exit 0) and exits 2 on an unknown command', async () => {
    const help = await memory('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
    for (const command of ['stats', 'doctor', 'recall', 'list', 'show', 'forget', 'import', 'jobs', 'serve'])
      expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    const unknown = await memory('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });
});
