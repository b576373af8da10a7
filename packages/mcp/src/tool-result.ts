import { isMemoryError } from '@memory/engine';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A successful tool result: text for the model, the same facts as structured content for programs. */
export function toolResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * A failed call as a tool error the model can read and act on: the engine's stable code and its
 * message (which never carries driver text). Anything else is a bug on our side, reported without
 * its internals.
 */
export function toolError(error: unknown): CallToolResult {
  if (isMemoryError(error)) {
    return {
      isError: true,
      content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    };
  }
  return { isError: true, content: [{ type: 'text', text: 'INTERNAL: the memory server failed to run this tool' }] };
}

/** Runs a tool body and turns any failure into a tool error instead of a protocol error. */
export async function runTool(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return toolError(error);
  }
}

/** Epoch milliseconds as an ISO date-time, the form models read best. */
export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
