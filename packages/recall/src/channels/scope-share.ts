import { agentMemoryShare, type SqlExecutor } from '@memory/store';

const SHARE_TTL_MS = 60_000;
const SHARE_ENTRIES = 1000;

/**
 * Whether an agent's lexical search should rank inside its FTS scope: yes unless the agent holds at
 * least half of all memories. Counted at most once a minute per agent (a count over the agent's
 * index range: a few ms at 100k), for at most 1,000 agents.
 */
export function createShareCache() {
  const cache = new Map<string, { scoped: boolean; at: number }>();
  return {
    scoped(sql: SqlExecutor, agentId: string, now: number): boolean {
      const hit = cache.get(agentId);
      if (hit && now - hit.at < SHARE_TTL_MS && now >= hit.at) return hit.scoped;
      const { agent, total } = agentMemoryShare(sql, agentId);
      const scoped = total === 0 || agent * 2 < total;
      cache.delete(agentId);
      cache.set(agentId, { scoped, at: now });
      if (cache.size > SHARE_ENTRIES) cache.delete(cache.keys().next().value as string);
      return scoped;
    },
  };
}
