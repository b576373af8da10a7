import { createHash } from 'node:crypto';
import { agentIdSchema, idSchema, isMemoryError, type LlmProvider, type Logger, sessionKeySchema } from '@memory/core';
import {
  type EnqueueInput,
  type Job,
  type JobContext,
  type JobHandler,
  PermanentJobError,
  type PortableQueue,
  type Queue,
} from '@memory/queue';
import {
  findDocumentProgram,
  findRegistryCategoryProgram,
  findRegistryObjectTextProgram,
  listObjectCategoriesProgram,
  listRegistryCategoriesProgram,
  type PortableStore,
  type Program,
} from '@memory/store';
import { z } from 'zod';
import type { Background } from './background.js';
import type { Note } from './note-view.js';
import { createNote, type NotesContext } from './notes.js';
import { insertCategory, insertLink, type RegistryDeps } from './registry.js';
import {
  buildClassifyPrompt,
  CLASSIFY_MAX_CANDIDATES,
  type ClassifyCandidate,
  decideCategories,
  type RefusedProposal,
} from './registry-classify.js';
import { normalizeCategoryName } from './registry-names.js';
import { type CategoryObject, objectKey } from './registry-objects.js';
import { aliasesOf, categoryNamed } from './registry-views.js';

/** The job type of registry auto-linking: one job per new memory, note, ingested document or completed transcript. */
export const REGISTRY_AUTOLINK_JOB = 'registry_autolink';

/** The objects auto-linking files: everything the engine holds (host objects are the host's to file). */
type AutoLinkObject = Extract<CategoryObject, { kind: 'memory' | 'document' | 'transcript' | 'note' }>;

const payloadSchema = z.strictObject({
  agentId: agentIdSchema,
  object: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.enum(['memory', 'document', 'note']), id: idSchema }),
    z.strictObject({ kind: z.literal('transcript'), id: sessionKeySchema }),
  ]),
});

const AUTOLINK_ACTOR = { id: 'registry-autolink', type: 'engine' } as const;

/**
 * The auto-linking job of a new object. One live job per object: the dedup key hashes the scope
 * too, since session keys are only unique within a scope.
 */
export function autoLinkJob(agentId: string, object: AutoLinkObject): EnqueueInput {
  const dedupKey = createHash('sha256').update(`${agentId}\u0000${object.kind}\u0000${object.id}`).digest('hex');
  return {
    jobType: REGISTRY_AUTOLINK_JOB,
    payload: { agentId, object },
    dedupKey,
    agentId,
    ...(object.kind === 'memory' ? { memoryId: object.id } : {}),
    ...(object.kind === 'document' ? { documentId: object.id } : {}),
  };
}

/**
 * Queues auto-linking of a new object (inside the caller's write transaction when one is open:
 * the job exists exactly when the object does).
 */
export function queueAutoLink(queue: Queue, agentId: string, object: AutoLinkObject): void {
  queue.enqueue(autoLinkJob(agentId, object));
}

/** {@link queueAutoLink} as a program, inside the caller's write on either dialect. */
export function* queueAutoLinkProgram(jobs: PortableQueue, agentId: string, object: AutoLinkObject): Program<void> {
  yield* jobs.enqueueProgram(autoLinkJob(agentId, object));
}

/** The auto-link job of an object (its own transaction; either dialect). */
export async function queueAutoLinkJob(jobs: PortableQueue, agentId: string, object: AutoLinkObject): Promise<void> {
  await jobs.enqueue(autoLinkJob(agentId, object));
}

/** The text the model reads for an object, or undefined when the object is gone or forgotten. */
const objectText = (agentId: string, object: AutoLinkObject): Program<string | undefined> =>
  findRegistryObjectTextProgram(agentId, objectKey(object));

/** What one auto-link job did; the queue stores it as the job's result. */
export interface AutoLinkResult {
  readonly linked: number;
  readonly created: string | null;
  readonly refused: readonly RefusedProposal[];
  readonly skipped?: string;
}

/**
 * The auto-link handler: prepare (read the object and the scope's categories, ask the model: no
 * transaction open) → apply (one short transaction: re-check the object and each category, create
 * at most one category, link). The model's answer is validated by `decideCategories`; a failing
 * model call throws, so the queue retries it and dead-letters it after `queue.maxAttempts` — the
 * object itself was committed long before and is never affected.
 */
export function createAutoLinkHandler(deps: RegistryDeps & { llm: LlmProvider; logger: Logger }) {
  const { portable: store, config, llm, logger } = deps;
  return async (job: Job, context: JobContext): Promise<AutoLinkResult> => {
    const parsed = payloadSchema.safeParse(job.payload);
    if (!parsed.success) throw new PermanentJobError('registry_autolink payload needs { agentId, object }');
    const { agentId, object } = parsed.data;
    const key = objectKey(object);
    const max = config.registry.maxPerObject;
    const prepared = await store.db.read(function* () {
      const text = yield* objectText(agentId, object);
      if (text === undefined) return { skipped: 'object gone' } as const;
      const room = max - (yield* listObjectCategoriesProgram(agentId, key)).length;
      if (room <= 0) return { skipped: 'already in maxPerObject categories' } as const;
      const candidates: ClassifyCandidate[] = (yield* listRegistryCategoriesProgram(
        agentId,
        CLASSIFY_MAX_CANDIDATES,
      )).map((row, i) => ({
        handle: `c${i + 1}`,
        id: row.id,
        name: row.name,
        description: row.description,
        aliases: aliasesOf(row),
      }));
      return { text, room, candidates };
    });
    if ('skipped' in prepared) return { linked: 0, created: null, refused: [], skipped: prepared.skipped };
    const answer = await llm.generate(
      {
        messages: [
          { role: 'user', content: buildClassifyPrompt({ kind: object.kind, max: prepared.room, ...prepared }) },
        ],
        responseFormat: 'json',
        maxOutputTokens: config.registry.maxOutputTokens,
        temperature: 0,
      },
      { signal: context.signal },
    );
    const decision = decideCategories(answer.text, prepared.candidates, prepared.room);
    if (decision.refused.length > 0)
      logger.warn('registry auto-link refused model proposals', {
        jobId: job.id,
        refused: decision.refused.slice(0, 10),
      });
    // One program, run again from the start if PostgreSQL retries it: its counts live inside it.
    return store.db.write(function* (): Program<AutoLinkResult> {
      if ((yield* objectText(agentId, object)) === undefined)
        return { linked: 0, created: null, refused: decision.refused, skipped: 'object gone' };
      const refused = [...decision.refused];
      let linked = 0;
      let created: string | null = null;
      function* link(categoryId: string, proposal: string): Program<void> {
        try {
          if (
            yield* insertLink(deps, { agentId, categoryId, object }, { actor: AUTOLINK_ACTOR, reason: 'auto-linked' })
          )
            linked++;
        } catch (error) {
          // The host linked the object meanwhile and it is full: the host's links win.
          if (!isMemoryError(error, 'CONFLICT')) throw error;
          refused.push({ proposal, reason: 'over maxPerObject' });
        }
      }
      for (const id of decision.link) {
        // A category deleted or merged away since the prompt is an unknown id now.
        if (yield* findRegistryCategoryProgram(agentId, id)) yield* link(id, id);
        else refused.push({ proposal: id, reason: 'unknown category id' });
      }
      if (decision.create) {
        const { name, description } = decision.create;
        const existing = yield* categoryNamed(agentId, normalizeCategoryName(name));
        if (existing) yield* link(existing.id, name);
        // Filled by the host meanwhile: creating a category nothing links to would only add noise.
        else if ((yield* listObjectCategoriesProgram(agentId, key)).length >= max)
          refused.push({ proposal: name, reason: 'over maxPerObject' });
        else {
          try {
            const category = yield* insertCategory(
              deps,
              { agentId, name, description, aliases: [] },
              { actor: AUTOLINK_ACTOR, reason: 'no existing category fit' },
            );
            created = category.name;
            yield* link(category.id, name);
          } catch (error) {
            // The name was checked above, so a conflict here is the per-agent category cap.
            if (!isMemoryError(error, 'CONFLICT')) throw error;
            refused.push({ proposal: name, reason: 'category limit reached' });
          }
        }
      }
      return { linked, created, refused };
    });
  };
}

/** Registers the auto-link worker under the shared LLM admission. */
export function registerAutoLinkWorker(deps: RegistryDeps & { llm: LlmProvider; background: Background }): void {
  const handler = createAutoLinkHandler({ ...deps, logger: deps.portable.logger });
  deps.background.register(
    {
      jobTypes: [REGISTRY_AUTOLINK_JOB],
      handler,
      admission: 'llm',
      concurrency: deps.config.queue.llmConcurrency,
      name: 'registry-autolink',
    },
    true,
  );
}

/**
 * The document ingest handler, followed by queuing the document's auto-link once it is `done`
 * (its text is known only then). Best effort: a failure to queue is logged, never the ingest's.
 */
export function withDocumentAutoLink(
  deps: { portable: PortableStore; jobs: PortableQueue },
  ingest: JobHandler,
): JobHandler {
  return async (job, context) => {
    const result = await ingest(job, context);
    const payload = job.payload as { documentId?: unknown; agentId?: unknown };
    if (typeof payload.documentId === 'string' && typeof payload.agentId === 'string') {
      const { documentId, agentId } = payload;
      try {
        const row = await deps.portable.db.read(() => findDocumentProgram(agentId, documentId));
        if (row?.status === 'done') await queueAutoLinkJob(deps.jobs, agentId, { kind: 'document', id: documentId });
      } catch (error) {
        deps.portable.logger.warn('could not queue registry auto-link for a document', {
          documentId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return result;
  };
}

/** `transcripts.complete`, then (when auto-linking is on) the session's auto-link job. */
export async function completeSession(
  ctx: RegistryDeps & {
    jobs: PortableQueue;
    autoLinkOn: boolean;
    transcripts: { complete(input: unknown): { completed: boolean } | Promise<{ completed: boolean }> };
  },
  input: unknown,
): Promise<{ completed: boolean }> {
  const result = await ctx.transcripts.complete(input);
  if (result.completed && ctx.autoLinkOn) {
    // `complete` validated the input: the scope and key are well-formed.
    const { agentId, sessionKey } = input as { agentId: string; sessionKey: string };
    try {
      await queueAutoLinkJob(ctx.jobs, agentId, { kind: 'transcript', id: sessionKey });
    } catch (error) {
      ctx.portable.logger.warn('could not queue registry auto-link for a transcript', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return result;
}

/** `notes.create`, then (when auto-linking is on) the new note's auto-link job. */
export async function createNoteFiled(nc: NotesContext, input: unknown): Promise<Note> {
  const note = await createNote(nc, input);
  const { ctx } = nc;
  if (ctx.autoLinkOn) {
    try {
      await queueAutoLinkJob(ctx.jobs, note.agentId, { kind: 'note', id: note.id });
    } catch (error) {
      ctx.portable.logger.warn('could not queue registry auto-link for a note', {
        noteId: note.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return note;
}
