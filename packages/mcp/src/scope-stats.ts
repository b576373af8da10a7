import type { MemoryEngine, VectorSupport } from '@memory/engine';

/** Pages read at most when counting a scope's sessions: counting stays bounded on a huge scope. */
const MAX_SESSION_PAGES = 20;
const PAGE = 500;

/** What the engine's reads say about one agent scope. */
export interface ScopeStats {
  readonly agentId: string;
  readonly sessions: {
    readonly total: number;
    readonly open: number;
    readonly completed: number;
    readonly turns: number;
    /** True when there were more sessions than were counted. */
    readonly truncated: boolean;
  };
  /** Documents per status (at most 500 read). */
  readonly documents: {
    readonly total: number;
    readonly byStatus: Readonly<Record<string, number>>;
    readonly truncated: boolean;
  };
  readonly memoryHead: { readonly revision: number; readonly entries: number; readonly updatedAt: number } | null;
  readonly embedder: { readonly available: boolean; readonly model?: string };
  readonly vector: VectorSupport;
}

/**
 * Counts what the engine lets a host list for one scope: sessions (paged through
 * `transcripts.list`), documents by status, and the MEMORY.md head. Memory counts are not part of
 * the engine API yet, so they are not guessed here.
 *
 * @example
 * ```ts
 * const stats = await scopeStats(engine, 'my-agent');
 * console.log(stats.sessions.total, stats.documents.byStatus);
 * ```
 */
export async function scopeStats(engine: MemoryEngine, agentId: string): Promise<ScopeStats> {
  let total = 0;
  let open = 0;
  let turns = 0;
  let truncated = false;
  let after: { updatedAt: number; sessionKey: string } | undefined;
  for (let page = 0; ; page++) {
    if (page === MAX_SESSION_PAGES) {
      truncated = true;
      break;
    }
    const sessions = await engine.transcripts.list({ agentId, limit: PAGE, ...(after ? { after } : {}) });
    for (const s of sessions) {
      total++;
      if (s.completedAt === null) open++;
      turns += s.turnCount;
    }
    const last = sessions.at(-1);
    if (!last || sessions.length < PAGE) break;
    after = { updatedAt: last.updatedAt, sessionKey: last.sessionKey };
  }
  const documents = await engine.documents.list({ agentId, limit: PAGE });
  const byStatus: Record<string, number> = {};
  for (const d of documents) byStatus[d.status] = (byStatus[d.status] ?? 0) + 1;
  const head = await engine.memoryHead({ agentId });
  const diagnostics = await engine.diagnostics();
  const { embedder, vector } = diagnostics.providers;
  return {
    agentId,
    sessions: { total, open, completed: total - open, turns, truncated },
    documents: { total: documents.length, byStatus, truncated: documents.length === PAGE },
    memoryHead: head
      ? {
          revision: head.revision,
          entries: head.content.split('\n').filter((l) => l.startsWith('- ')).length,
          updatedAt: head.updatedAt,
        }
      : null,
    embedder: { available: embedder.available, ...(embedder.model === undefined ? {} : { model: embedder.model }) },
    vector,
  };
}
