import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// SQL lives in @memory/store: Dreaming calls named repository functions. The one exception left is
// the memory operations' cold copy in writers.ts, which moves when the store's single memory writer
// lands (issue 10); remove it from ALLOWED then.
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  'writers.ts': ['raw(', 'INSERT INTO memories_cold'],
};

const SQL = [
  /\braw\(/g,
  /\bqueryBuilder\b/g,
  /\bSELECT\s[^'"`]*\bFROM\b/g,
  /\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b\s*\w+/g,
  /\bUPDATE\s+(?:OR\s+\w+\s+)?\w+\s+SET\b/g,
  /\bDELETE\s+FROM\b/g,
  /\b(?:CREATE|DROP|ALTER)\s+(?:VIRTUAL\s+)?(?:TABLE|INDEX|TRIGGER)\b/g,
];

describe('Dreaming holds no SQL', () => {
  const dir = join(import.meta.dirname, '../src');
  it.each(readdirSync(dir).filter((f) => f.endsWith('.ts')))('%s', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const found = SQL.flatMap((re) => [...text.matchAll(re)].map((m) => m[0]));
    const allowed = ALLOWED[file] ?? [];
    expect(found.filter((f) => !allowed.some((a) => f.startsWith(a)))).toEqual([]);
  });
});
