import { isAbsolute } from 'node:path';
import { agentIdSchema, labelSchema } from '@memory/core';
import { z } from 'zod';

const isStream = (value: unknown): value is AsyncIterable<Uint8Array | string> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

export const startSchema = z
  .strictObject({
    /** The scope every imported transcript lands in, whatever agent_id the export carries. */
    agentId: agentIdSchema,
    /** Absolute path of a signet-export v1 JSONL file. It is read by byte offset, never whole. */
    file: z.string().min(1).max(4096).refine(isAbsolute, 'file must be an absolute path').optional(),
    /** The export as a stream (a Node readable or any async iterable of bytes), spooled to `imports.spoolDirectory` first. */
    stream: z
      .custom<AsyncIterable<Uint8Array | string>>(isStream, 'stream must be a readable stream or async iterable')
      .optional(),
    /** What to do with a record already imported into this scope: report it as a duplicate. @default 'skip' */
    duplicateMode: z.literal('skip', { error: "duplicateMode supports 'skip' (report duplicates)" }).optional(),
    /** Stops spooling a stream and refuses to queue the import once aborted. */
    signal: z.instanceof(AbortSignal, { error: 'signal must be an AbortSignal' }).optional(),
  })
  .refine((s) => (s.file === undefined) !== (s.stream === undefined), 'give exactly one of file or stream');

/** An import by id, in its agent scope: another scope's import is answered as if it did not exist. */
export const refSchema = z.strictObject({ agentId: agentIdSchema, jobId: labelSchema(128, 'jobId') });

export const recordsSchema = z.strictObject({
  agentId: agentIdSchema,
  jobId: labelSchema(128, 'jobId'),
  outcome: z.enum(['pending', 'imported', 'duplicate', 'rejected']).optional(),
  /** Records after this line number (paging). */
  afterLine: z.number().int().min(-1).optional(),
  /** @default 100 */
  limit: z.number().int().min(1).max(1000).optional(),
});

export type StartImportInput = z.input<typeof startSchema>;
/** An import by id, in the scope it was started in. */
export interface ImportRef {
  readonly agentId: string;
  readonly jobId: string;
}
export type ListImportRecordsInput = z.input<typeof recordsSchema>;
