// The files of the stranger's project that installs the packed tarballs: its manifest, the README
// quick start, a CommonJS script, a two-copies check, a type-checked consumer and one tsconfig per
// module resolution mode.
import { readFileSync } from 'node:fs';

/**
 * The first ```ts block under the README's "## Quick start" heading, verbatim.
 * @param {string} readmePath
 */
export function readmeQuickStart(readmePath) {
  const readme = readFileSync(readmePath, 'utf8');
  const section = readme.split(/^## Quick start\s*$/m)[1];
  const block = section?.match(/```ts\n([\s\S]*?)\n```/);
  if (!block?.[1]) throw new Error('README.md has no ```ts block under "## Quick start"');
  return `${block[1]}\n`;
}

/**
 * @param {{ tarballs: Map<string, string>, coreTarball: string | undefined, typesNode: string, peers: Record<string, string> }} input
 */
export function consumerManifest({ tarballs, coreTarball, typesNode, peers }) {
  // Optional peers too (the AI SDK, OpenTelemetry...): the typed consumer imports every entry point,
  // and an entry's declarations may name its peer's types, as they do in a host that uses it.
  const dependencies = { ...peers };
  for (const [name, file] of tarballs) dependencies[name] = `file:${file}`;
  // A second copy of @memory/core under another name: what a partial upgrade leaves behind.
  if (coreTarball) dependencies['memory-core-copy'] = `file:${coreTarball}`;
  dependencies['@types/node'] = typesNode;
  // The AI SDK's declarations import `json-schema` types that it does not depend on (vercel/ai#15874,
  // open): a host that type-checks libraries (skipLibCheck false) with `ai` installs them itself.
  if (peers.ai) dependencies['@types/json-schema'] = '^7.0.15';
  return { name: 'memory-pack-consumer', private: true, type: 'module', dependencies };
}

/**
 * Requires every entry point from CommonJS, then, when the engine is there, runs one remember and
 * recall through `require('@memory/engine')`.
 * @param {string[]} specifiers
 */
export function requireScript(specifiers) {
  return `'use strict';
const specifiers = ${JSON.stringify(specifiers)};
for (const specifier of specifiers) {
  const loaded = require(specifier);
  if (Object.keys(loaded).length === 0) throw new Error(specifier + ' has no exports through require()');
}
async function main() {
  if (!specifiers.includes('@memory/engine') || !specifiers.includes('@memory/providers')) return;
  const { createMemoryEngine, isMemoryError } = require('@memory/engine');
  const { createHashingEmbedder } = require('@memory/providers');
  const engine = await createMemoryEngine({ database: { path: ':memory:' }, embedder: createHashingEmbedder() });
  try {
    await engine.remember({ agentId: 'cjs', content: 'CommonJS hosts can require the engine.' });
    const response = await engine.recall({ agentId: 'cjs', query: 'require the engine' });
    if (response.results.length !== 1) throw new Error('recall through require() found ' + response.results.length);
    await engine.getMemory({ agentId: 'cjs', id: 'not an id' }).then(
      () => { throw new Error('getMemory accepted a bad id'); },
      (error) => { if (!isMemoryError(error, 'INVALID_INPUT')) throw error; },
    );
  } finally {
    await engine.close();
  }
}
main().then(() => console.log('required ' + specifiers.length + ' entry points'));
`;
}

/** Opening an engine without better-sqlite3's native build fails with a STORAGE_ERROR naming the fix. */
export function noNativeBuildScript() {
  return `import { createMemoryEngine, isMemoryError } from '@memory/engine';
try {
  const engine = await createMemoryEngine({ database: { path: ':memory:' } });
  await engine.close();
  throw new Error('the engine opened without a native build; the check has nothing to check');
} catch (error) {
  if (!isMemoryError(error, 'STORAGE_ERROR') || !error.message.includes('npm rebuild better-sqlite3')) throw error;
  console.log(error.message.slice(0, 120) + '...');
}
`;
}

/** Errors from one copy of @memory/core are recognized by the other (ESM). */
export function twoCopiesScript() {
  return `import { MemoryError, isMemoryError } from '@memory/core';
import * as copy from 'memory-core-copy';
if (copy.MemoryError === MemoryError) throw new Error('expected two copies of @memory/core');
const fromCopy = new copy.MemoryError('NOT_FOUND', 'thrown by the other copy');
if (!isMemoryError(fromCopy, 'NOT_FOUND')) throw new Error('isMemoryError missed the other copy');
if (!(fromCopy instanceof MemoryError)) throw new Error('instanceof missed the other copy');
if (!copy.isMemoryError(new MemoryError('PINNED', 'x'), 'PINNED')) throw new Error('the copy missed this one');
console.log('two copies interoperate');
`;
}

/**
 * Runs `createTransformersEmbedder` from the installed package on the tiny ONNX model that
 * @memory/providers' tests ship (copied to ./tiny-bert): the built worker file, and the optional
 * peers as a host installs them (npm, install scripts off).
 */
export function transformersScript() {
  return `import { existsSync } from 'node:fs';
import { createTransformersEmbedder } from '@memory/providers';
const worker = 'node_modules/@memory/providers/dist/transformers/embed-worker.js';
if (!existsSync(worker)) throw new Error('no built worker at ' + worker);
const embedder = await createTransformersEmbedder({ modelPath: './tiny-bert' });
const [v] = await embedder.embed(['coffee']);
// [CLS] coffee [SEP] mean-pooled and normalized: (1, 0, 0, 2) / sqrt(5).
const expected = [1, 0, 0, 2].map((x) => x / Math.sqrt(5));
if (v.length !== 4 || expected.some((x, i) => Math.abs(v[i] - x) > 1e-6)) throw new Error('unexpected vector ' + [...v]);
await embedder.close();
console.log(embedder.model + ': ' + embedder.dimensions + ' dimensions, known vector');
`;
}

/**
 * A consumer that imports every typed entry point, and checks that the public types the engine
 * re-exports are real types, not a silent \`any\`.
 * @param {string[]} specifiers
 */
export function typedConsumer(specifiers) {
  const imports = specifiers.map((s, i) => `import * as entry${i} from '${s}';`);
  const has = (s) => specifiers.includes(s);
  const probes = [];
  if (has('@memory/engine')) {
    probes.push(
      "import type { DreamingOperation, MemoryEngine, RecallResponse } from '@memory/engine';",
      'type IsAny<T> = 0 extends 1 & T ? true : false;',
      'export const notAny: [IsAny<DreamingOperation>, IsAny<MemoryEngine>, IsAny<RecallResponse>] = [false, false, false];',
      "export const operation: DreamingOperation['operation'] = 'create_entity';",
    );
  }
  return [
    ...imports,
    ...probes,
    `export const entries = [${specifiers.map((_, i) => `entry${i}`).join(', ')}];`,
    '',
  ].join('\n');
}

/** The same consumer from a CommonJS module (NodeNext only: TypeScript ≥ 5.8 models require() of ESM). */
export function typedCjsConsumer(specifiers) {
  const lines = specifiers.map((s, i) => `import entry${i} = require('${s}');`);
  return [...lines, `export const entries = [${specifiers.map((_, i) => `entry${i}`).join(', ')}];`, ''].join('\n');
}

const strict = { strict: true, skipLibCheck: false, noEmit: true, esModuleInterop: true, types: ['node'] };

/** One tsconfig per resolution mode the issue names, all with skipLibCheck off. */
export const typecheckConfigs = {
  // The README quick start is checked here too, against the packed declarations, and emitted to
  // out/quickstart.js for plain Node to run (TypeScript lowers `await using`, which Node 20 lacks).
  nodenext: {
    compilerOptions: {
      ...strict,
      noEmit: false,
      outDir: 'out',
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
    },
    files: ['consumer.ts', 'consumer-cjs.cts', 'quickstart.ts'],
  },
  bundler: {
    compilerOptions: { ...strict, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler' },
    files: ['consumer.ts'],
  },
  node10: {
    compilerOptions: { ...strict, target: 'ES2022', module: 'CommonJS', moduleResolution: 'node10' },
    files: ['consumer.ts'],
  },
};
