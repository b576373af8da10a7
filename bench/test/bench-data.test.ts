import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingBenchData } from '../src/bench-data.js';

const empty = mkdtempSync(join(tmpdir(), 'memory-bench-data-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('benchmarks without the shared data', () => {
  it('names the directory, the missing files and the --data flag', () => {
    const message = missingBenchData(empty, ['locomo/locomo10.json'], 'bench:locomo');
    expect(message).toContain(empty);
    expect(message).toContain('Missing:   locomo/locomo10.json');
    expect(message).toContain('npm run bench:locomo -- --data /path/to/shared/data');
    expect(message).toContain('../shared/data');
  });

  it('says nothing when the files are there', () => {
    mkdirSync(join(empty, 'locomo'), { recursive: true });
    writeFileSync(join(empty, 'locomo', 'locomo10.json'), '[]');
    expect(missingBenchData(empty, ['locomo/locomo10.json'], 'bench:locomo')).toBeUndefined();
    expect(missingBenchData(empty, ['locomo/locomo10.json', 'scifact/corpus_train.csv'], 'x')).toContain(
      'Missing:   scifact/corpus_train.csv',
    );
  });

  it('a benchmark script exits with status 2 and the explanation, not a stack trace', () => {
    const run = spawnSync(
      process.execPath,
      ['--conditions=@memory/source', '--import', 'tsx', 'src/scifact-bench.ts', '--data', join(empty, 'nowhere')],
      { cwd: join(import.meta.dirname, '..'), encoding: 'utf8', timeout: 150_000 },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('bench:scifact needs benchmark data');
    expect(run.stderr).toContain('scifact/corpus_train.csv');
    expect(run.stderr).not.toContain('ENOENT');
  }, 180_000);
});
