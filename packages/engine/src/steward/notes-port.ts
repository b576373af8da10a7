import type { EngineNotes } from '../notes.js';
import type { EntityRef } from './task-context.js';

/** A working note as the steward reads it (the shape `engine.notes` returns). */
export interface StewardNote {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly tags: readonly string[];
  readonly status: 'active' | 'resolved' | 'archived';
  readonly linkedEntities: readonly EntityRef[];
  readonly updatedAt: number;
}

interface Audit {
  readonly actor?: { readonly id: string; readonly type?: 'operator' | 'agent' | 'engine' };
  readonly reason?: string;
}

/**
 * The part of `engine.notes` the steward uses. A seam rather than the notes module itself, so the
 * steward can be built and tested without it; with none, task recall has no notes and
 * mini-reflection is skipped (and says so).
 */
export interface StewardNotesPort {
  list(input: {
    readonly agentId: string;
    readonly status?: 'active' | 'resolved' | 'archived';
    readonly entity?: { readonly type: string; readonly refId: string };
    readonly limit?: number;
  }): Promise<{ readonly items: readonly StewardNote[] }>;
  create(
    input: Audit & {
      readonly agentId: string;
      readonly title: string;
      readonly content: string;
      readonly tags?: readonly string[];
      readonly linkedEntities?: readonly EntityRef[];
    },
  ): Promise<StewardNote>;
  update(
    input: Audit & {
      readonly agentId: string;
      readonly id: string;
      readonly title?: string;
      readonly content?: string;
      readonly linkedEntities?: readonly EntityRef[];
    },
  ): Promise<StewardNote>;
  resolve(input: Audit & { readonly agentId: string; readonly id: string }): Promise<StewardNote>;
}

/** The steward's view of `engine.notes` (readonly arrays become the copies the notes API takes). */
export function notesPort(notes: EngineNotes): StewardNotesPort {
  const links = (refs: readonly EntityRef[] | undefined) =>
    refs === undefined ? {} : { linkedEntities: refs.map((r) => ({ ...r })) };
  const actor = (a: Audit['actor']) => (a === undefined ? {} : { actor: { id: a.id, type: a.type ?? 'engine' } });
  return {
    list: (input) => notes.list({ ...input }),
    create: ({ tags, linkedEntities, actor: a, ...rest }) =>
      notes.create({ ...rest, ...(tags ? { tags: [...tags] } : {}), ...links(linkedEntities), ...actor(a) }),
    update: ({ linkedEntities, actor: a, ...rest }) => notes.update({ ...rest, ...links(linkedEntities), ...actor(a) }),
    resolve: ({ actor: a, ...rest }) => notes.resolve({ ...rest, ...actor(a) }),
  };
}
