import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBin } from './build-bin.js';
import { runBin, tempDir, writeExport } from './helpers.js';

const tmp = tempDir();
// Our own tmux server (its own socket): nothing else running tmux is touched.
const socket = `memory-cli-test-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
let bin: string;
let removeBin: () => void;

beforeAll(async () => {
  ({ bin, remove: removeBin } = await buildBin());
}, 180_000);
afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // Already gone with its last session.
  }
  removeBin?.();
  tmp.remove();
});

async function waitFor(check: () => string | undefined, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting for the terminal');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('memory import on a terminal (tmux)', () => {
  it('draws a progress bar on the terminal and prints the final counters', async () => {
    const file = join(tmp.dir, 'export.jsonl');
    const db = join(tmp.dir, 'memory.db');
    const raw = join(tmp.dir, 'terminal.raw');
    writeExport(file, 1500, 3);
    const command = `${process.execPath} ${bin} --db ${db} import ${file} --agent erin; echo "EXIT=$?"; sleep 60`;
    tmux('new-session', '-d', '-s', 'import', '-x', '180', '-y', '40', command);
    // Everything the program writes to the terminal, escapes included.
    tmux('pipe-pane', '-t', 'import', '-o', `cat >> ${raw}`);
    const screen = await waitFor(() => {
      const pane = tmux('capture-pane', '-p', '-t', 'import');
      return /EXIT=\d+/.test(pane) ? pane : undefined;
    }, 180_000);

    expect(screen).toMatch(/importing .*100% \| 1503\/1503 lines \| 1500 imported, 0 duplicate, 3 rejected/);
    expect(screen).toMatch(/^imported\s+1500$/m);
    expect(screen).toMatch(/^rejected\s+3$/m);
    expect(screen).toContain('EXIT=4');
    const stream = readFileSync(raw, 'latin1');
    // A terminal gets the bar's cursor control and colored counters; a pipe gets neither (cli.test.ts).
    expect(stream).toContain('\u001b[?25l');
    expect(stream).toMatch(/\u001b\[\d+m/);
  }, 400_000);

  it('pauses on Ctrl-C (exit 130) and `--resume` finishes the import from its checkpoint', async () => {
    const file = join(tmp.dir, 'long.jsonl');
    const db = join(tmp.dir, 'resume.db');
    writeExport(file, 8000);
    const command = `${process.execPath} ${bin} --db ${db} import ${file} --agent fay; echo "EXIT=$?"; sleep 60`;
    tmux('new-session', '-d', '-s', 'resume', '-x', '180', '-y', '40', command);
    await waitFor(() => {
      const pane = tmux('capture-pane', '-p', '-t', 'resume');
      const percent = /(\d+)% \|/.exec(pane)?.[1];
      return percent !== undefined && Number(percent) >= 1 ? pane : undefined;
    }, 180_000);
    // The SIGINT a Ctrl-C sends, delivered to the CLI itself (the pane's shell is its parent).
    const shell = tmux('list-panes', '-t', 'resume', '-F', '#{pane_pid}').trim();
    const cli = Number(execFileSync('pgrep', ['-P', shell], { encoding: 'utf8' }).trim().split('\n')[0]);
    process.kill(cli, 'SIGINT');
    const screen = await waitFor(() => {
      const pane = tmux('capture-pane', '-p', '-t', 'resume');
      return /EXIT=\d+/.test(pane) ? pane : undefined;
    }, 180_000);
    expect(screen).toContain('EXIT=130');
    expect(screen).toMatch(/^status\s+paused$/m);
    const importId = /memory import --resume (\S+) --agent fay/.exec(screen)?.[1];
    expect(importId).toBeDefined();
    const pending = Number(/^pending\s+(\d+)$/m.exec(screen)?.[1]);
    expect(pending).toBeGreaterThan(0);

    const resumed = await runBin(bin, ['--db', db, '--json', 'import', '--resume', String(importId), '--agent', 'fay']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      status: 'completed',
      counters: { total: 8000, imported: 8000, duplicate: 0, rejected: 0, pending: 0 },
    });
  }, 400_000);
});
