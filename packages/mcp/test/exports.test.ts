import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// A new export is a reviewed change: update these lists deliberately (vitest -u).
it('@memory/mcp exports', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toMatchSnapshot();
});

it('@memory/mcp/host exports', async () => {
  expect(Object.keys(await import('../src/host.js')).sort()).toMatchSnapshot();
});

it('@memory/mcp/host reaches no module that imports the MCP SDK (the CLI loads it at every start)', () => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
    expect(source, file).not.toContain('@modelcontextprotocol/sdk');
    for (const m of source.matchAll(/from '\.\/([\w/-]+)\.js'/g)) visit(`${m[1]}.ts`);
  };
  visit('host.ts');
  expect([...seen].sort()).toEqual(['host.ts', 'open-engine.ts', 'scope-stats.ts', 'server-args.ts']);
});
