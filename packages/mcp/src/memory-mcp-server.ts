import type { MemoryEngine, TokenPermission } from '@memory/engine';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerResources } from './resources.js';
import { registerEvidenceTools } from './tools/evidence-tools.js';
import { registerHistoryTool, registerMemoryWriteTools } from './tools/memory-tools.js';
import { registerNoteReadTools, registerNoteWriteTools } from './tools/note-tools.js';
import { registerRecallTool } from './tools/recall-tool.js';

/** What a memory MCP server serves: one engine, one agent scope. */
export interface MemoryMcpServerOptions {
  /** The engine every tool call goes through. The server never closes it. */
  readonly engine: MemoryEngine;
  /**
   * The one agent scope this server reads and writes. It is configuration, never a tool argument:
   * a model cannot reach another agent's memories by naming it.
   */
  readonly agentId: string;
  /**
   * What the caller may do (a token's permissions): without `write` the writing tools (remember,
   * forget, modify, transcript_append, document_add, note_create, note_update, note_resolve,
   * note_archive) are not offered, without `read` neither are recall, history, note_search,
   * note_list and the resources. @default every permission (the server's own configuration)
   */
  readonly permissions?: readonly TokenPermission[];
  /** @default 'memory' */
  readonly name?: string;
  /** @default this package's version */
  readonly version?: string;
}

/** The version the server reports to clients. */
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Long-term memory for this assistant. Call recall before answering anything that may depend on earlier ' +
  'conversations; call remember for durable facts, preferences and decisions worth keeping; correct with modify ' +
  'and drop with forget (both take the id shown at the end of each recalled line). Keep short-lived working ' +
  'context (action items, follow-ups) as notes with note_create, and resolve or archive them when done.';

/**
 * An MCP server (not yet connected to a transport) whose tools and resources call `engine` in one
 * agent scope.
 *
 * @example
 * ```ts
 * const server = createMemoryMcpServer({ engine, agentId: 'my-agent' });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMemoryMcpServer(options: MemoryMcpServerOptions): McpServer {
  const { agentId } = options;
  const server = new McpServer(
    { name: options.name ?? 'memory', version: options.version ?? MCP_SERVER_VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: {}, resources: {} } },
  );
  const can = (permission: TokenPermission): boolean => options.permissions?.includes(permission) ?? true;
  if (can('write')) {
    registerMemoryWriteTools(server, options.engine, agentId);
    registerEvidenceTools(server, options.engine, agentId);
    registerNoteWriteTools(server, options.engine, agentId);
  }
  if (can('read')) {
    registerRecallTool(server, options.engine, agentId);
    registerHistoryTool(server, options.engine, agentId);
    registerNoteReadTools(server, options.engine, agentId);
    registerResources(server, options.engine, agentId);
  }
  return server;
}
