import { ACTOR_TYPES, NOTE_EVENTS, NOTE_STATUSES } from '@memory/store';
import { z } from 'zod';
import { queryInt } from './schemas.js';

// Working notes over HTTP: the transport schemas of `/api/notes` (shapes only; `engine.notes` applies
// its own rules to every call) and the response schemas `/openapi.json` publishes for them.

const noteStatus = z.enum(NOTE_STATUSES);
const linkedEntity = z.strictObject({ type: z.string(), refId: z.string(), label: z.string().optional() });
const entity = z.strictObject({ type: z.string(), refId: z.string() });
const audit = {
  /** Who makes the change: an id (an agent's), or `{ id, type }`. @default the agent */
  actor: z.union([z.string(), z.strictObject({ id: z.string(), type: z.enum(ACTOR_TYPES) })]).optional(),
  reason: z.string().optional().meta({ description: 'Why, for the note history' }),
};

export const createNoteBody = z.strictObject({
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()).optional(),
  linkedEntities: z.array(linkedEntity).optional(),
  ...audit,
});

export const updateNoteBody = z.strictObject({
  title: z.string().optional(),
  content: z.string().optional(),
  tags: z.array(z.string()).optional(),
  linkedEntities: z.array(linkedEntity).optional().meta({ description: "Replaces the note's links whole" }),
  ...audit,
});

export const noteTransitionBody = z.strictObject(audit);

/**
 * `GET /api/notes`: the engine's `entity` is two query parameters (both or neither), and `tags` a
 * comma-separated list (every tag listed must be on the note).
 */
export const listNotesQuery = z
  .strictObject({
    status: noteStatus.optional(),
    entityType: z.string().min(1).optional(),
    entityRefId: z.string().min(1).optional(),
    tags: z
      .string()
      .transform((s) => s.split(',').map((t) => t.trim()))
      .optional()
      .meta({ description: 'Comma-separated; every tag listed must be on the note' }),
    cursor: z.string().optional(),
    limit: queryInt(1, 500).optional(),
  })
  .refine((q) => (q.entityType === undefined) === (q.entityRefId === undefined), {
    message: 'entityType and entityRefId go together',
    path: ['entityType'],
  });

export const searchNotesBody = z.strictObject({
  query: z.string().optional().meta({ description: 'Text to search; without it, a filter-only search' }),
  entity: entity.optional(),
  status: noteStatus.optional(),
  limit: z.number().int().min(1).optional(),
});

export const noteResponse = z.object({
  id: z.string(),
  agentId: z.string(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  status: noteStatus,
  linkedEntities: z.array(z.object({ type: z.string(), refId: z.string(), label: z.string().optional() })),
  /** Note times are epoch milliseconds, as `engine.notes` returns them. */
  createdAt: z.number(),
  updatedAt: z.number(),
  resolvedAt: z.number().nullable(),
  archivedAt: z.number().nullable(),
});
export const notePageResponse = z.object({ items: z.array(noteResponse), nextCursor: z.string().nullable() });
export const noteSearchResponse = z.object({ hits: z.array(z.object({ note: noteResponse, score: z.number() })) });
export const noteHistoryResponse = z.object({
  history: z.array(
    z.object({
      id: z.string(),
      noteId: z.string(),
      event: z.enum(NOTE_EVENTS),
      actor: z.string(),
      actorType: z.enum(ACTOR_TYPES),
      reason: z.string().nullable(),
      before: noteResponse.nullable(),
      after: noteResponse.nullable(),
      metadata: z.record(z.string(), z.unknown()),
      at: z.number(),
    }),
  ),
});
