import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// ARCHITECTURE §3: SQL has one home. Every statement lives in @memory/store (or in the queue's
// one-operation-per-file modules); other packages call named store functions and build no SQL.

const root = join(import.meta.dirname, '..', '..');
const NO_SQL_PACKAGES = ['core', 'ingest', 'recall', 'dreaming', 'engine', 'providers'];

/** The text of every string literal (quotes and template parts) in TypeScript source, comments skipped. */
function stringLiterals(source: string): string[] {
  const out: string[] = [];
  let i = 0;
  // Template literal nesting: each entry counts the braces open inside one `${ … }`.
  const templates: number[] = [];
  const readTemplate = (): void => {
    let text = '';
    while (i < source.length) {
      const c = source[i];
      if (c === '\\') {
        text += source.slice(i, i + 2);
        i += 2;
      } else if (c === '`') {
        i++;
        out.push(text);
        return;
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2;
        out.push(text);
        templates.push(0);
        return;
      } else {
        text += c;
        i++;
      }
    }
    out.push(text);
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      i = source.indexOf('\n', i);
      if (i < 0) break;
    } else if (c === '/' && next === '*') {
      i = source.indexOf('*/', i + 2);
      if (i < 0) break;
      i += 2;
    } else if (c === "'" || c === '"') {
      let text = '';
      i++;
      while (i < source.length && source[i] !== c && source[i] !== '\n') {
        if (source[i] === '\\') {
          text += source.slice(i, i + 2);
          i += 2;
        } else text += source[i++];
      }
      i++;
      out.push(text);
    } else if (c === '`') {
      i++;
      readTemplate();
    } else if (templates.length > 0 && c === '{') {
      templates[templates.length - 1] = (templates.at(-1) ?? 0) + 1;
      i++;
    } else if (templates.length > 0 && c === '}') {
      const depth = templates.at(-1) ?? 0;
      i++;
      if (depth === 0) {
        templates.pop();
        readTemplate();
      } else templates[templates.length - 1] = depth - 1;
    } else i++;
  }
  return out;
}

// Statement shapes, not lone words: "select" or "update" alone are ordinary English in messages.
const SQL_SHAPES = [
  /\bselect\b[\s\S]+?\bfrom\s+\w+[\s\S]*(?:\?|\bwhere\b|\bjoin\b|\blimit\b|\border\s+by\b|\bgroup\s+by\b)|\bselect\s+(?:[\w.*()]+\s+as\s+\w+|\*|[\w.]+\s*,)/i,
  /\binsert\s+(?:or\s+\w+\s+)?into\s+\w/i,
  /\bupdate\s+(?:or\s+\w+\s+)?\w+\s+set\s+\w+\s*=/i,
  /\bdelete\s+from\s+\w/i,
  /\b(?:create|drop)\s+(?:virtual\s+)?(?:table|index|trigger|view)\b/i,
  /\balter\s+table\s+\w/i,
  /\bpragma\s+\w+/i,
  /\bwhere\s+\w+(?:\.\w+)?\s*(?:=|is\s+null|in\s*\()/i,
  /\bmatch\s+\?/i,
];

function sqlIn(literal: string): boolean {
  return SQL_SHAPES.some((shape) => shape.test(literal));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('SQL has one home', () => {
  it('the detector sees SQL in every kind of literal and nothing in ordinary text', () => {
    const source = [
      "const a = 'SELECT id FROM memories WHERE agent_id = ?';",
      'const b = "insert or ignore into entity_aliases (x) values (?)";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text holding a template literal
      'const c = `UPDATE ${table} SET status = ? WHERE id = ?`;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text holding a template literal
      'const d = `DELETE FROM memory_hints WHERE x = ${f(`inner`)}`;',
      '// SELECT * FROM commented_out WHERE a = 1',
      "const e = 'Select the best memories from this list';",
      "const f = 'update the memory when content changes';",
    ].join('\n');
    const literals = stringLiterals(source);
    expect(literals.filter(sqlIn)).toEqual([
      'SELECT id FROM memories WHERE agent_id = ?',
      'insert or ignore into entity_aliases (x) values (?)',
      ' SET status = ? WHERE id = ?',
      'DELETE FROM memory_hints WHERE x = ',
    ]);
    expect(literals).toContain('Select the best memories from this list');
    expect(literals).not.toContain('SELECT * FROM commented_out WHERE a = 1');
  });

  it.each(NO_SQL_PACKAGES)('@memory/%s holds no SQL text', (pkg) => {
    const found = sourceFiles(join(root, 'packages', pkg, 'src')).flatMap((file) =>
      stringLiterals(readFileSync(file, 'utf8'))
        .filter(sqlIn)
        .map((literal) => `${relative(root, file)}: ${literal.trim().slice(0, 120)}`),
    );
    expect(found).toEqual([]);
  });

  it.each(NO_SQL_PACKAGES)("@memory/%s does not import the store's raw SQL door", (pkg) => {
    const offenders = sourceFiles(join(root, 'packages', pkg, 'src')).filter((file) =>
      /from\s+'@memory\/store\/sql'/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((f) => relative(root, f))).toEqual([]);
  });
});
