/**
 * A matcher for glob patterns over `/`-separated relative paths: `*` and `?` stay inside one
 * segment, `**` spans segments, `{a,b}` is either. A pattern without a `/` matches a path's last
 * segment (`*.md` matches `notes/a.md`), as in `.gitignore`.
 */
export function globMatcher(patterns: readonly string[]): (path: string) => boolean {
  const compiled = patterns.map((pattern) => ({ re: globToRegExp(pattern), base: !pattern.includes('/') }));
  return (path) => {
    const base = path.slice(path.lastIndexOf('/') + 1);
    return compiled.some(({ re, base: onBase }) => re.test(onBase ? base : path));
  };
}

const SPECIAL = /[.+^$()|[\]\\]/;

/** A glob pattern as an anchored regular expression. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i + 1] === '*') {
      i++;
      if (pattern[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += SPECIAL.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${re}${')'.repeat(braces)}$`);
}
