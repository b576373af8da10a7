import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemoryMcpServer, type MemoryMcpServerOptions } from './memory-mcp-server.js';

/**
 * Serves the memory tools over stdio (what desktop clients spawn). Resolves once connected; the
 * returned promise of `closed` settles when the client closes stdin.
 *
 * @example
 * ```ts
 * const { closed } = await serveMcpStdio({ engine, agentId: 'my-agent' });
 * await closed;
 * await engine.close();
 * ```
 */
export async function serveMcpStdio(options: MemoryMcpServerOptions): Promise<{ closed: Promise<void> }> {
  const server = createMemoryMcpServer(options);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  // The client ends the session by closing our stdin; the transport itself does not watch for that.
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  return { closed };
}
