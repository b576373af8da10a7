import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBin } from './build-bin.js';
import { tempDir, writeExport } from './helpers.js';

const tmp = tempDir();
// Our own tmux server (its own socket): nothing else running tmux is touched.
const socket = `memory-cli-test-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
let bin: string;
let removeBin: () => void;

beforeAll(async () => {
  ({ bin, remove: removeBin } = await buildBin());
}, 60_000);
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
    }, 90_000);

    expect(screen).toMatch(/importing .*100% \| 1503\/1503 lines \| 1500 imported, 0 duplicate, 3 rejected/);
    expect(screen).toMatch(/^imported\s+1500$/m);
    expect(screen).toMatch(/^rejected\s+3$/m);
    expect(screen).toContain('EXIT=4');
    const stream = readFileSync(raw, 'latin1');
    // A terminal gets the bar's cursor control and colored counters; a pipe gets neither (cli.test.ts).
    expect(stream).toContain('\u001b[?25l');
    expect(stream).toMatch(/\u001b\[\d+m/);
  }, 120_000);
});
