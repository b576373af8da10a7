import type { MemoryEngine } from '@memory/engine';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { scopeStats } from './scope-stats.js';

/** The resources' addresses. The scope is the server's, so the addresses carry no agent id. */
export const RESOURCE_URIS = { head: 'memory://head', stats: 'memory://stats' } as const;

/** The MEMORY.md head and the scope's stats, read through the engine in the server's scope. */
export function registerResources(server: McpServer, engine: MemoryEngine, agentId: string): void {
  server.registerResource(
    'memory-head',
    RESOURCE_URIS.head,
    {
      title: 'MEMORY.md',
      description:
        'A short curated summary of what is known in this memory, every entry backed by a stored quote. ' +
        'Empty until a consolidation pass has written one.',
      mimeType: 'text/markdown',
    },
    async (uri) => {
      const head = await engine.memoryHead({ agentId });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: head?.content ?? '' }] };
    },
  );

  server.registerResource(
    'memory-stats',
    RESOURCE_URIS.stats,
    {
      title: 'Memory stats',
      description: 'Counts for this memory scope: sessions, documents by status, the MEMORY.md head, search support.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const stats = await scopeStats(engine, agentId);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(stats, null, 2) }] };
    },
  );
}
