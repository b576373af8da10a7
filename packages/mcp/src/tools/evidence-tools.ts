import type { AddDocumentInput, MemoryEngine } from '@memory/engine';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { runTool, toolResult } from '../tool-result.js';

const turn = z.object({
  role: z
    .enum(['user', 'assistant', 'system', 'tool', 'tool_call', 'tool_result', 'function', 'thinking', 'reasoning'])
    .describe('Who spoke. Only user and assistant turns are kept; the others are accepted and dropped.'),
  content: z.string().describe('The turn exactly as said.'),
  at: z.string().optional().describe('When it was said (ISO 8601), if not now.'),
  id: z.string().min(1).optional().describe('Your id for the turn; a turn already stored with this id is skipped.'),
});

/** transcript_append and document_add: evidence the engine keeps and indexes in the background. */
export function registerEvidenceTools(server: McpServer, engine: MemoryEngine, agentId: string): void {
  server.registerTool(
    'transcript_append',
    {
      title: 'Append to transcript',
      description:
        'Keep turns of the current conversation as evidence that later recalls can quote and expand. Use one ' +
        'stable sessionKey per conversation and append new turns as they happen; repeating a turn is harmless.',
      inputSchema: {
        sessionKey: z.string().min(1).describe('A stable key for this conversation, e.g. its id or a date and topic.'),
        turns: z.array(turn).min(1).describe('The new turns, oldest first.'),
        project: z.string().min(1).optional().describe('The project this conversation belongs to, if any.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ sessionKey, turns, project }) =>
      runTool(async () => {
        const result = await engine.transcripts.append({
          agentId,
          sessionKey,
          harness: 'mcp',
          turns,
          ...(project === undefined ? {} : { project }),
        });
        const text =
          `Session ${sessionKey}: ${result.appended} turns stored, ${result.duplicates} already there, ` +
          `${result.dropped} dropped (only user and assistant turns are kept).`;
        return toolResult(text, { ...result });
      }),
  );

  server.registerTool(
    'document_add',
    {
      title: 'Add document',
      description:
        'Add a document to memory so later recalls can find its passages: either a public http(s) URL to fetch, ' +
        'or the text itself. It is chunked and indexed in the background; the result gives its id.',
      inputSchema: {
        url: z.string().optional().describe('An http or https URL to fetch. Give url or content, not both.'),
        content: z.string().min(1).optional().describe('The document text. Give url or content, not both.'),
        contentType: z
          .enum(['text/plain', 'text/markdown', 'text/html', 'application/json'])
          .optional()
          .describe('The format of content (default text/plain).'),
        title: z.string().min(1).optional().describe('A title to show with its passages.'),
        project: z.string().min(1).optional().describe('The project this document belongs to, if any.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      runTool(async () => {
        // The engine decides what a valid document is (exactly one of url or content, its limits).
        const { id, jobId } = await engine.documents.add({ ...args, agentId } as AddDocumentInput);
        return toolResult(`Queued document ${id} for indexing.`, { id, jobId, status: 'queued' });
      }),
  );
}
