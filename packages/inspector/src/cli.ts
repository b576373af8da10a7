#!/usr/bin/env node
// memory-inspector: opens a database with the engine and serves the inspector for one agent.
// A command-line program, so it prints; the library modules never do.
import { parseArgs } from 'node:util';
import { createMemoryEngine } from '@memory/engine';
import { createOfflineEmbedder } from '@memory/providers';
import { startInspector } from './server.js';

const USAGE = `usage: memory-inspector --db <file> --agent <agentId> [--port 4477] [--host 127.0.0.1]
                        [--embedder offline|none] [--write-token <token>]
The write token may also come from MEMORY_INSPECTOR_TOKEN; without one the inspector is read-only.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      agent: { type: 'string' },
      port: { type: 'string', default: '4477' },
      host: { type: 'string', default: '127.0.0.1' },
      embedder: { type: 'string', default: 'offline' },
      'write-token': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || !values.db || !values.agent || !['offline', 'none'].includes(values.embedder)) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const writeToken = values['write-token'] ?? process.env.MEMORY_INSPECTOR_TOKEN;
  // The embedder must be the one the database's vectors came from (the demo's is the offline one).
  const engine = await createMemoryEngine({
    database: { path: values.db },
    ...(values.embedder === 'offline' ? { embedder: createOfflineEmbedder() } : {}),
  });
  const inspector = await startInspector({
    engine,
    agentId: values.agent,
    host: values.host,
    port: Number(values.port),
    ...(writeToken ? { writeToken } : {}),
  });
  process.stdout.write(
    `memory inspector for agent ${values.agent}: ${inspector.url}/ (${writeToken ? 'open it once with ?token=<token> to accept or reject proposals' : 'read-only'})\n`,
  );
  const stop = async (): Promise<void> => {
    await inspector.close();
    await engine.close();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

await main();
