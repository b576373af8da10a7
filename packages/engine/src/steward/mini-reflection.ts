import type { LlmProvider } from '@memory/core';
import type { EngineContext } from '../context.js';
import { askModel, listIn } from './model-call.js';
import type { StewardNote, StewardNotesPort } from './notes-port.js';
import { copiedFromInjection, injectedSpans, isInstructionLike } from './signal-rules.js';
import type { EntityRef, ResolvedEntity } from './task-context.js';
import { checkLinks, entitiesBlock, type TaskForPrompt, taskBlock, UNTRUSTED_TASK_RULE } from './task-prompt.js';
import { message } from './task-recall.js';

/** A note change mini-reflection made. */
export interface NoteChange {
  readonly action: 'create' | 'update' | 'resolve';
  readonly id: string;
  readonly title: string;
  readonly linkedEntities: readonly EntityRef[];
  /** Links the model proposed that the task did not resolve to: not stored. */
  readonly rejectedLinks: readonly string[];
}

/** What mini-reflection did, or why it did not run. */
export interface MiniReflection {
  /** Why it did not run: turned off, no high-signal tool used, no notes, or an unusable model answer. */
  readonly skipped?: 'disabled' | 'no_high_signal_tools' | 'notes_unavailable' | 'model_failed';
  /** The high-signal tools the task used. */
  readonly highSignalTools: readonly string[];
  readonly changes: readonly NoteChange[];
  readonly rejected: ReadonlyArray<{ readonly action: string; readonly reason: string; readonly detail: string }>;
  readonly warnings: readonly string[];
}

export interface MiniReflectionDeps {
  readonly ctx: EngineContext;
  readonly llm: LlmProvider;
  readonly notes: StewardNotesPort | undefined;
  readonly signal: AbortSignal | undefined;
}

const SYSTEM_PROMPT = [
  'You keep the working notes of an AI agent: short notes about meetings, commitments, follow-ups and next',
  'steps, each linked to the host objects it concerns. A task that changed the world (a calendar event, an',
  'email sent, a contact or project created) has ended. Capture its decisions, commitments and next steps:',
  '- create a note for a new matter, linked to handles from ENTITIES (e1, e2...) only;',
  '- update an existing note (by its handle n1, n2...) when the task changed what it says;',
  '- resolve an existing note when the task concluded its matter.',
  'Never invent handles. Skip pleasantries. Most tasks need one or two changes; none is a fine answer.',
  UNTRUSTED_TASK_RULE,
  'Answer with JSON only: {"notes":[{"action":"create","title":"...","content":"...","entities":["e1"],',
  '"tags":["follow-up"]},{"action":"update","note":"n1","content":"...","title":"..."},',
  '{"action":"resolve","note":"n2","reason":"..."}]}',
].join('\n');

const cut = (s: string, n: number): string => (s.length > n ? s.slice(0, n) : s);
const str = (v: unknown): string => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '');
const tagsOf = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.filter((t): t is string => typeof t === 'string' && /^[\p{L}\p{N}_-]{1,32}$/u.test(t)).slice(0, 5)
    : [];

/** The task's active notes about its entities, as `n1`, `n2`… handles. */
async function existingNotes(
  notes: StewardNotesPort,
  agentId: string,
  entities: readonly ResolvedEntity[],
): Promise<Map<string, StewardNote>> {
  const byId = new Map<string, StewardNote>();
  for (const e of entities) {
    const { items } = await notes.list({
      agentId,
      status: 'active',
      entity: { type: e.type, refId: e.refId },
      limit: 10,
    });
    for (const note of items) if (byId.size < 20) byId.set(note.id, note);
  }
  return new Map([...byId.values()].map((n, i) => [`n${i + 1}`, n]));
}

function notesBlock(handles: ReadonlyMap<string, StewardNote>): string {
  if (handles.size === 0) return 'EXISTING NOTES: none';
  const lines = [...handles].map(
    ([h, n]) => `${h} = "${cut(n.title, 120)}": ${cut(n.content.replace(/\s+/g, ' '), 400)}`,
  );
  return `EXISTING NOTES:\n${lines.join('\n')}`;
}

/**
 * After a task that used high-signal tools (`steward.highSignalTools`), asks the model which
 * entity-linked notes to create, update or resolve, checks every change (known handles only,
 * links among the resolved entities, at least one link on a new note, no injected instructions,
 * at most `steward.maxNotesPerTask`), and applies them through the notes API with the steward as
 * actor. Every failure is a logged warning; nothing is thrown at the host except an abort.
 */
export async function miniReflect(
  deps: MiniReflectionDeps,
  input: {
    readonly agentId: string;
    readonly task: TaskForPrompt;
    readonly handles: ReadonlyMap<string, ResolvedEntity>;
    readonly tools: readonly string[];
    readonly text: string;
  },
): Promise<MiniReflection> {
  const { ctx, notes } = deps;
  const { steward } = ctx.config;
  const logger = ctx.store.logger;
  const highSignal = input.tools.filter((t) => steward.highSignalTools.includes(t));
  const none = { highSignalTools: highSignal, changes: [], rejected: [] };
  if (!steward.miniReflectionEnabled) return { ...none, skipped: 'disabled', warnings: [] };
  if (highSignal.length === 0) return { ...none, skipped: 'no_high_signal_tools', warnings: [] };
  if (!notes)
    return { ...none, skipped: 'notes_unavailable', warnings: ['mini-reflection: working notes are not available'] };
  const warnings: string[] = [];
  const warn = (text: string, fields: Record<string, unknown> = {}): void => {
    warnings.push(`mini-reflection: ${text}`);
    logger.warn(`steward mini-reflection: ${text}`, { taskId: input.task.taskId, ...fields });
  };
  let noteHandles: Map<string, StewardNote>;
  try {
    noteHandles = await existingNotes(notes, input.agentId, [...input.handles.values()]);
  } catch (error) {
    warn('reading existing notes failed', { error: message(error) });
    return { ...none, skipped: 'notes_unavailable', warnings };
  }
  const answer = await askModel(
    ctx,
    deps.llm,
    [
      { role: 'system', content: SYSTEM_PROMPT },
      {
        role: 'user',
        content: `${entitiesBlock(input.handles)}\n\n${notesBlock(noteHandles)}\n\n${taskBlock(input.task, steward.maxTaskChars)}`,
      },
    ],
    'steward.consolidate',
    deps.signal,
  );
  const proposals = 'json' in answer ? listIn(answer.json, 'notes') : undefined;
  if ('failure' in answer || proposals === undefined) {
    warn('failure' in answer ? answer.failure : 'the model answered JSON without a "notes" list');
    return { ...none, skipped: 'model_failed', warnings };
  }
  const injected = injectedSpans(input.text);
  const changes: NoteChange[] = [];
  const rejected: Array<{ action: string; reason: string; detail: string }> = [];
  const touched = new Set<string>();
  const actor = { id: 'steward', type: 'engine' } as const;
  const reason = `steward mini-reflection after task ${input.task.taskId}`;
  for (const item of proposals.slice(0, 50)) {
    const p = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    const action = str(p['action']).toLowerCase();
    const title = cut(str(p['title']), 200);
    const content = cut(str(p['content']), 4000);
    const reject = (why: string, detail: string): void => {
      rejected.push({ action: action || '(none)', reason: why, detail });
    };
    if (action !== 'create' && action !== 'update' && action !== 'resolve') {
      reject('invalid', 'action must be create, update or resolve');
      continue;
    }
    if (changes.length >= steward.maxNotesPerTask) {
      reject('over_limit', `at most ${steward.maxNotesPerTask} note changes per task`);
      continue;
    }
    if ([title, content].some((t) => isInstructionLike(t) || (t.length > 0 && copiedFromInjection(t, injected)))) {
      reject('instruction_like', 'reads as (or restates) an instruction found in the task');
      continue;
    }
    const links = checkLinks(p['entities'] ?? p['linkedEntities'], input.handles);
    try {
      if (action === 'create') {
        if (title.length === 0 || content.length === 0) {
          reject('invalid', 'a new note needs a title and content');
          continue;
        }
        if (links.accepted.length === 0) {
          reject('no_verified_entity', 'a new note must link at least one host object the task resolved to');
          continue;
        }
        const note = await notes.create({
          agentId: input.agentId,
          title,
          content,
          tags: tagsOf(p['tags']),
          linkedEntities: links.accepted,
          actor,
          reason,
        });
        changes.push({
          action,
          id: note.id,
          title: note.title,
          linkedEntities: links.accepted,
          rejectedLinks: links.rejected,
        });
        continue;
      }
      const handle = str(p['note'] ?? p['id']);
      const existing = noteHandles.get(handle);
      if (!existing || touched.has(existing.id)) {
        reject('unknown_note', `no note ${cut(handle, 40) || '(none)'} was offered to update or resolve`);
        continue;
      }
      touched.add(existing.id);
      if (action === 'resolve') {
        const note = await notes.resolve({ agentId: input.agentId, id: existing.id, actor, reason });
        changes.push({
          action,
          id: note.id,
          title: note.title,
          linkedEntities: note.linkedEntities,
          rejectedLinks: [],
        });
        continue;
      }
      if (title.length === 0 && content.length === 0) {
        reject('invalid', 'an update needs a title or content');
        continue;
      }
      const merged = [...existing.linkedEntities];
      for (const l of links.accepted) if (!merged.some((m) => m.type === l.type && m.refId === l.refId)) merged.push(l);
      const note = await notes.update({
        agentId: input.agentId,
        id: existing.id,
        ...(title.length > 0 ? { title } : {}),
        ...(content.length > 0 ? { content } : {}),
        linkedEntities: merged,
        actor,
        reason,
      });
      changes.push({ action, id: note.id, title: note.title, linkedEntities: merged, rejectedLinks: links.rejected });
    } catch (error) {
      warn(`${action} failed`, { error: message(error) });
      reject('write_failed', message(error));
    }
  }
  return { highSignalTools: highSignal, changes, rejected, warnings };
}
