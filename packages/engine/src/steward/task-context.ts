import { agentIdSchema, labelSchema } from '@memory/core';
import { z } from 'zod';

/** A reference to an object the host owns (a contact, a project, a reminder, a job). */
export interface EntityRef {
  readonly type: string;
  readonly refId: string;
  readonly label?: string | undefined;
}

/** A host object a task resolved to: how sure, and which resolver found it. */
export interface ResolvedEntity extends EntityRef {
  /** 0..1: the resolver's confidence (its kind's default when it gave none). */
  readonly confidence: number;
  /** `<kind>:<resolver name>`, or `host` for references the task passed in `entities`. */
  readonly via: string;
}

const refSchema = z.strictObject({
  type: labelSchema(64, 'type'),
  refId: labelSchema(256, 'refId'),
  label: labelSchema(256, 'label').optional(),
});

/** The fields every steward call reads from a task. */
export const taskContextFields = {
  agentId: agentIdSchema,
  /** The host's id for the task (a job, a conversation turn): the provenance of what it stores. */
  taskId: labelSchema(256, 'taskId').optional(),
  /** What the task is about: the user's message, the job's instruction. */
  text: z.string({ error: 'text must be a string' }).max(200_000, 'text must be at most 200000 characters'),
  /** Who sent it. */
  sender: z
    .strictObject({
      email: labelSchema(320, 'sender.email').optional(),
      name: labelSchema(256, 'sender.name').optional(),
    })
    .optional(),
  /** The conversation or mail thread it belongs to. */
  threadId: labelSchema(256, 'threadId').optional(),
  /** A reminder that triggered it. */
  reminderId: labelSchema(256, 'reminderId').optional(),
  /** Host objects the host already knows the task is about (confidence 1, via `host`). */
  entities: z.array(refSchema).max(64).optional(),
};

/** A task context as `steward.recall` and `steward.resolve` take it (strict: unknown keys are refused). */
export const taskContextSchema = z.strictObject(taskContextFields);

/** What a task is about, as the host describes it to the steward. */
export type TaskContext = z.input<typeof taskContextSchema>;
export type ParsedTaskContext = z.output<typeof taskContextSchema>;
