import { createHash } from 'node:crypto';
import { hasVisibleText, type MemoryConfig, MemoryError, parseInput, yieldToEventLoop } from '@memory/core';
import {
  bm25Score,
  completeTranscriptProgram,
  findIdleTranscriptsProgram,
  findTranscriptProgram,
  ftsTokens,
  insertTurnsProgram,
  listTranscriptsProgram,
  listTurnsProgram,
  type NewTurn,
  type PortableStore,
  type Program,
  queryTerms,
  searchTranscriptTurnsProgram,
  type TranscriptRole,
  type TranscriptRow,
  type TranscriptTurnRow,
  turnScopeLockKeys,
  upsertTranscriptProgram,
} from '@memory/store';
import { KEPT_ROLES, type TranscriptSchemas } from './inputs.js';

export interface TranscriptTurn {
  readonly seq: number;
  readonly role: TranscriptRole;
  readonly content: string;
  readonly at: number | null;
}

export interface TranscriptSummary {
  readonly agentId: string;
  readonly sessionKey: string;
  readonly harness: string | null;
  readonly project: string | null;
  readonly turnCount: number;
  readonly contentHash: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly completedAt: number | null;
}

export interface Transcript extends TranscriptSummary {
  readonly turns: readonly TranscriptTurn[];
  /** The transcript as evidence: `role: content` per turn, separated by a blank line. */
  readonly content: string;
}

export interface AppendResult {
  readonly sessionKey: string;
  /** Turns stored by this call. */
  readonly appended: number;
  /** Turns already in the session (same id, or same role, content and time). */
  readonly duplicates: number;
  /** Tool, system and reasoning turns, and empty turns: accepted, never stored. */
  readonly dropped: number;
}

export interface TranscriptSearchHit {
  readonly sessionKey: string;
  readonly seq: number;
  readonly role: TranscriptRole;
  readonly content: string;
  readonly at: number | null;
  /** 0..1, higher is better. */
  readonly score: number;
}

/** Renders turns the way Dreaming and `expand` read them. Quotes cite substrings of this text. */
export function renderTranscript(turns: ReadonlyArray<{ role: string; content: string }>): string {
  return turns.map((t) => `${t.role}: ${t.content}`).join('\n\n');
}

function turnKey(turn: { id?: string | undefined; role: string; content: string; at?: number | undefined }): string {
  if (turn.id !== undefined) return `id:${turn.id}`;
  return `h:${createHash('sha256')
    .update(`${turn.role}\u0000${turn.at ?? ''}\u0000${turn.content}`)
    .digest('hex')}`;
}

const isKept = (role: string): role is TranscriptRole => (KEPT_ROLES as readonly string[]).includes(role);

function summary(row: TranscriptRow, turnCount: number): TranscriptSummary {
  return {
    agentId: row.agent_id,
    sessionKey: row.session_key,
    harness: row.harness,
    project: row.project,
    turnCount,
    contentHash: row.content_hash,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

const toTurn = (t: TranscriptTurnRow): TranscriptTurn => ({ seq: t.seq, role: t.role, content: t.content, at: t.at });

/**
 * Completes one open session inside the caller's write: its turns are rendered and the rendering
 * and its hash are fixed.
 */
function* completeProgram(agentId: string, sessionKey: string, now: number): Program<void> {
  const content = renderTranscript(yield* listTurnsProgram(agentId, sessionKey));
  yield* completeTranscriptProgram({
    agentId,
    sessionKey,
    content,
    contentHash: createHash('sha256').update(content).digest('hex'),
    now,
  });
}

/**
 * Session transcripts: capture, completion, reading and search, all agent-scoped, on either
 * dialect (each operation is one program: one transaction).
 */
export function createTranscripts(deps: { store: PortableStore; config: MemoryConfig; schemas: TranscriptSchemas }) {
  const { store, schemas, config } = deps;

  return {
    /** Appends turns to a session (created on first append). Completed sessions refuse appends (`CONFLICT`). */
    async append(input: unknown): Promise<AppendResult> {
      const request = parseInput(schemas.append, input, 'transcripts.append');
      const { agentId, sessionKey } = request;
      const kept: NewTurn[] = [];
      let dropped = 0;
      for (const turn of request.turns) {
        if (!isKept(turn.role) || !hasVisibleText(turn.content)) dropped++;
        else kept.push({ turnKey: turnKey(turn), role: turn.role, content: turn.content, at: turn.at ?? null });
      }
      // A bot appends every turn as it happens: past the WAL's restart point `db.write` waits for a
      // checkpoint that covers every commit (see `sqliteDatabase`), or a stream of appends kept
      // the WAL growing to the writer's own checkpoint (64,000 frames).
      const appended = await store.db.write(
        function* () {
          const now = store.clock.now();
          const existing = yield* findTranscriptProgram(agentId, sessionKey);
          if (existing?.completed_at != null) {
            throw new MemoryError('CONFLICT', `session ${sessionKey} is completed; start a new session key`, {
              details: { sessionKey },
            });
          }
          yield* upsertTranscriptProgram({
            agentId,
            sessionKey,
            harness: request.harness ?? null,
            project: request.project ?? null,
            now,
          });
          const inserted = yield* insertTurnsProgram(store.dialect, agentId, sessionKey, kept, now);
          return inserted.filter(Boolean).length;
        },
        { lockKeys: turnScopeLockKeys(agentId) },
      );
      return { sessionKey, appended, duplicates: kept.length - appended, dropped };
    },

    /** Completes a session: its rendered content and hash are fixed. Returns false if it already was. */
    async complete(input: unknown): Promise<{ completed: boolean }> {
      const { agentId, sessionKey } = parseInput(schemas.session, input, 'transcripts.complete');
      return store.db.write(function* () {
        const row = yield* findTranscriptProgram(agentId, sessionKey);
        if (!row)
          throw new MemoryError('NOT_FOUND', `no session ${sessionKey} in this scope`, { details: { sessionKey } });
        if (row.completed_at !== null) return { completed: false };
        yield* completeProgram(agentId, sessionKey, store.clock.now());
        return { completed: true };
      });
    },

    /** A session with its turns, or undefined (also for other agents' sessions). */
    async get(input: unknown): Promise<Transcript | undefined> {
      const { agentId, sessionKey } = parseInput(schemas.session, input, 'transcripts.get');
      return store.db.read(function* () {
        const row = yield* findTranscriptProgram(agentId, sessionKey);
        if (!row) return undefined;
        const turns = (yield* listTurnsProgram(agentId, sessionKey)).map(toTurn);
        return {
          ...summary(row, turns.length),
          turns,
          content: row.completed_at === null ? renderTranscript(turns) : row.content,
        };
      });
    },

    /** Sessions of one agent, most recently active first. Page with `after` = the last session returned. */
    async list(input: unknown): Promise<TranscriptSummary[]> {
      const request = parseInput(schemas.list, input, 'transcripts.list');
      const rows = await store.db.read(() =>
        listTranscriptsProgram({
          agentId: request.agentId,
          project: request.project,
          completed: request.completed,
          after: request.after,
          limit: request.limit ?? 50,
        }),
      );
      return rows.map((row) => summary(row, row.turn_count));
    },

    /**
     * BM25 over an agent's transcript turns (completed sessions unless `completedOnly: false`), from
     * that agent's own statistics: the same scores and order on SQLite and PostgreSQL.
     */
    async search(input: unknown): Promise<TranscriptSearchHit[]> {
      const request = parseInput(schemas.search, input, 'transcripts.search');
      const terms = queryTerms(ftsTokens(request.query), config.recall.maxQueryTokens);
      const hits = await store.db.read(() =>
        searchTranscriptTurnsProgram({
          agentId: request.agentId,
          terms,
          completedOnly: request.completedOnly ?? true,
          limit: request.limit ?? 10,
        }),
      );
      return hits.map((h) => ({
        sessionKey: h.session_key,
        seq: h.seq,
        role: h.role,
        content: h.content,
        at: h.at,
        score: bm25Score(h.bm25),
      }));
    },

    /**
     * Completes sessions idle for `transcripts.idleCompleteMs` (abandoned without `complete`), in
     * bounded transactions. Returns how many were completed.
     */
    async completeIdle(): Promise<number> {
      const { idleCompleteMs, sweepBatchSize } = config.transcripts;
      let total = 0;
      for (;;) {
        if (total > 0) await yieldToEventLoop();
        const done = await store.db.write(function* () {
          const now = store.clock.now();
          const idle = yield* findIdleTranscriptsProgram(now - idleCompleteMs, sweepBatchSize);
          for (const s of idle) yield* completeProgram(s.agent_id, s.session_key, now);
          return idle.length;
        });
        total += done;
        if (done < sweepBatchSize) return total;
      }
    },
  };
}

export type Transcripts = ReturnType<typeof createTranscripts>;
