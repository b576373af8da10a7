import { isMemoryError, type MemoryEngine, type MemoryErrorCode } from '@memory/engine';
import type { Tool } from 'ai';
import { z } from 'zod';

/** Memory types a model may choose (document chunks are written by document ingest only). */
const TOOL_MEMORY_TYPES = [
  'fact',
  'preference',
  'decision',
  'procedural',
  'semantic',
  'constraint',
  'agreement',
  'incident',
  'operating_rule',
  'project_context',
] as const;

const rememberInput = z.object({
  content: z.string().min(1).describe('The memory: one self-contained statement, written so it makes sense later.'),
  type: z.enum(TOOL_MEMORY_TYPES).optional().describe('What kind of memory this is. Default: fact.'),
  tags: z.array(z.string().min(1)).max(16).optional().describe('Short labels to find it by.'),
  importance: z.number().min(0).max(1).optional().describe('0..1: how much it matters later.'),
});

const recallInput = z.object({
  query: z.string().min(1).describe('What you want to know, in plain words.'),
  limit: z.number().int().min(1).max(20).optional().describe('At most this many memories. Default: 8.'),
});

const forgetInput = z.object({
  id: z.string().min(1).describe('The id of a memory, as returned by recall or remember.'),
  reason: z.string().min(1).describe('Why it should be forgotten (kept in the audit trail).'),
});

export type RememberToolInput = z.infer<typeof rememberInput>;
export type RecallToolInput = z.infer<typeof recallInput>;
export type ForgetToolInput = z.infer<typeof forgetInput>;

/** What a tool answers when the engine refused the call for a reason the model can act on. */
export interface MemoryToolRefusal {
  readonly ok: false;
  readonly code: MemoryErrorCode;
  readonly message: string;
}

export type RememberToolOutput =
  | { readonly ok: true; readonly id: string; readonly deduped: boolean }
  | MemoryToolRefusal;
export type RecallToolOutput =
  | {
      readonly ok: true;
      readonly memories: ReadonlyArray<{
        readonly id: string;
        readonly content: string;
        readonly type: string;
        /** `linked`: structurally verified; `related`: a text or meaning match (a hypothesis). */
        readonly tier: 'linked' | 'related';
        /** ISO date the memory was made. */
        readonly date: string;
      }>;
    }
  | MemoryToolRefusal;
export type ForgetToolOutput =
  | {
      readonly ok: true;
      /** False when it was already forgotten. */
      readonly forgotten: boolean;
    }
  | MemoryToolRefusal;

export interface MemoryToolsOptions {
  /** The agent scope every call reads and writes. */
  readonly agentId: string;
  /** Recorded in the audit trail of remember and forget. */
  readonly sessionId?: string;
  /** Results `recall` returns when the model does not say. @default 8 */
  readonly recallLimit?: number;
}

// A type literal, not an interface: it must be assignable to the SDK's `ToolSet` (an index signature).
export type MemoryTools = {
  readonly remember: Tool<RememberToolInput, RememberToolOutput>;
  readonly recall: Tool<RecallToolInput, RecallToolOutput>;
  readonly forget: Tool<ForgetToolInput, ForgetToolOutput>;
};

// Refusals the model can act on (fix its input, pick another id); anything else (a closed engine,
// a full disk) is the host's problem and is thrown, so the SDK reports a tool error.
const MODEL_ACTIONABLE: ReadonlySet<MemoryErrorCode> = new Set(['INVALID_INPUT', 'NOT_FOUND', 'PINNED', 'CONFLICT']);

async function refusalOr<T>(run: () => Promise<T>): Promise<T | MemoryToolRefusal> {
  try {
    return await run();
  } catch (error) {
    if (isMemoryError(error) && MODEL_ACTIONABLE.has(error.code))
      return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

/**
 * `remember`, `recall` and `forget` as Vercel AI SDK tools, scoped to one agent. Pass them to
 * `generateText` / `streamText` as `tools`. Inputs are zod schemas; a refusal the model can act
 * on (bad input, an unknown or pinned id) comes back as `{ ok: false, code, message }`, other
 * failures are thrown.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * const result = await generateText({
 *   model,
 *   tools: memoryTools(engine, { agentId: 'support-bot' }),
 *   stopWhen: stepCountIs(3),
 *   prompt: 'Remember that Dana prefers short emails.',
 * });
 * ```
 */
export function memoryTools(engine: MemoryEngine, options: MemoryToolsOptions): MemoryTools {
  const { agentId } = options;
  const audit = options.sessionId === undefined ? {} : { sessionId: options.sessionId };
  const defaultLimit = options.recallLimit ?? 8;
  return {
    remember: {
      description: 'Store a memory for later conversations: a fact, preference, decision or rule worth keeping.',
      inputSchema: rememberInput,
      execute: (input) =>
        refusalOr(async () => {
          const { id, deduped } = await engine.remember({ agentId, ...stripUndefined(input), ...audit });
          return { ok: true as const, id, deduped };
        }),
    },
    recall: {
      description: 'Search your memories. Returns the best matches with their ids.',
      inputSchema: recallInput,
      execute: (input, { abortSignal }) =>
        refusalOr(async () => {
          const response = await engine.recall({
            agentId,
            query: input.query,
            limit: input.limit ?? defaultLimit,
            ...(abortSignal ? { signal: abortSignal } : {}),
          });
          return {
            ok: true as const,
            memories: response.results.map((r) => ({
              id: r.id,
              content: r.content,
              type: r.type,
              tier: r.tier,
              date: new Date(r.createdAt).toISOString().slice(0, 10),
            })),
          };
        }),
    },
    forget: {
      description: 'Forget a memory that is wrong or no longer wanted (it can be recovered by an operator).',
      inputSchema: forgetInput,
      execute: (input) =>
        refusalOr(async () => {
          const { forgotten } = await engine.forget({ agentId, id: input.id, reason: input.reason, ...audit });
          return { ok: true as const, forgotten };
        }),
    },
  };
}

/** Drops keys whose value is undefined (the engine's options are exact: absent, not undefined). */
function stripUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
