import type { ActorType, NoteEventKind, NoteEventRow, NoteRow, NoteStatus } from '@memory/store';

export type { NoteStatus } from '@memory/store';

/** A host reference on a note: the same shape as a memory's `linkedEntities`. */
export interface NoteLinkedEntity {
  readonly type: string;
  readonly refId: string;
  readonly label?: string;
}

/** A working note as `engine.notes` returns it. Times are epoch milliseconds, like every other engine time. */
export interface Note {
  readonly id: string;
  readonly agentId: string;
  readonly title: string;
  readonly content: string;
  readonly tags: string[];
  readonly status: NoteStatus;
  readonly linkedEntities: NoteLinkedEntity[];
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly resolvedAt: number | null;
  readonly archivedAt: number | null;
}

/** One `note_events` audit row: who changed the note, why, and the note before and after. */
export interface NoteEvent {
  readonly id: string;
  readonly noteId: string;
  readonly event: NoteEventKind;
  /** Who made the change (the agent id by default; `engine` for reaping). */
  readonly actor: string;
  readonly actorType: ActorType;
  readonly reason: string | null;
  /** The note before the change; null for `created`. */
  readonly before: Note | null;
  /** The note after the change (null only if the stored image is unreadable). */
  readonly after: Note | null;
  /** What else was recorded (reaping: `afterDays`, the note's last update). */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly at: number;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

function toLinkedEntities(value: unknown): NoteLinkedEntity[] {
  if (!Array.isArray(value)) return [];
  const out: NoteLinkedEntity[] = [];
  for (const x of value as unknown[]) {
    if (typeof x !== 'object' || x === null) continue;
    const { type, refId, label } = x as Record<string, unknown>;
    if (typeof type !== 'string' || typeof refId !== 'string') continue;
    out.push(typeof label === 'string' ? { type, refId, label } : { type, refId });
  }
  return out;
}

/** The public view of a note row (a damaged JSON column reads as empty). */
export function toNote(row: NoteRow): Note {
  const tags = parseJson(row.tags);
  return {
    id: row.id,
    agentId: row.agent_id,
    title: row.title,
    content: row.content,
    tags: isStringArray(tags) ? tags : [],
    status: row.status,
    linkedEntities: toLinkedEntities(parseJson(row.linked_entities)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    resolvedAt: row.resolved_at,
    archivedAt: row.archived_at,
  };
}

const isNote = (v: unknown): v is Note =>
  typeof v === 'object' && v !== null && typeof (v as Note).id === 'string' && typeof (v as Note).status === 'string';

/** A stored time as epoch ms: snapshots written before times were numbers (or imported) hold ISO text. */
function epochMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** A note snapshot from `note_events`, its times as epoch ms whatever form they were stored in. */
function snapshot(value: unknown): Note | null {
  if (!isNote(value)) return null;
  return {
    ...value,
    createdAt: epochMs(value.createdAt) ?? 0,
    updatedAt: epochMs(value.updatedAt) ?? 0,
    resolvedAt: epochMs(value.resolvedAt),
    archivedAt: epochMs(value.archivedAt),
  };
}

/** The public view of an audit row. */
export function toNoteEvent(row: NoteEventRow): NoteEvent {
  const before = parseJson(row.before_json);
  const after = parseJson(row.after_json);
  const metadata = parseJson(row.metadata);
  return {
    id: row.id,
    noteId: row.note_id,
    event: row.event,
    actor: row.actor,
    actorType: row.actor_type,
    reason: row.reason,
    before: snapshot(before),
    after: snapshot(after),
    metadata:
      typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
        ? (metadata as Record<string, unknown>)
        : {},
    at: row.created_at,
  };
}
