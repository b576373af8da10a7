import type { MemoryId } from '@memory/core';
import type { MemoryCandidateRow } from '@memory/store';
import type { TraversalPath } from './channels/traversal.js';
import type { Adjustments, ChannelEvidence } from './shaping.js';
import type { RecallResult } from './types.js';

/** A memory some channel found, with what each channel said about it. */
export interface Candidate {
  readonly id: string;
  readonly evidence: ChannelEvidence;
  row?: MemoryCandidateRow;
  path?: TraversalPath;
  linkedBy?: Array<{ type: string; refId: string }>;
}

export interface ScoredCandidate {
  readonly c: Candidate;
  /** Final score, clamped to 0..1. */
  readonly score: number;
  /** Final score before clamping: the sort key. */
  readonly raw: number;
  /** After fusion and caps, before dampening. */
  readonly fused: number;
  readonly adjustments: Adjustments & { graphBoost?: number };
}

function parseTags(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/** The public shape of a ranked candidate. */
export function toResult(
  { c, score, fused, adjustments }: ScoredCandidate,
  entities: ReadonlyArray<{ id: string; name: string }> | undefined,
  explain: boolean,
): RecallResult {
  const row = c.row as MemoryCandidateRow;
  const e = c.evidence;
  const anchored = e.anchored === true;
  return {
    kind: 'memory',
    id: row.id as MemoryId,
    content: row.content,
    type: row.type,
    score,
    tier: e.linked !== undefined || (c.path !== undefined && c.path.claimId !== undefined) ? 'linked' : 'related',
    channels: {
      ...(e.lexical !== undefined ? { lexical: e.lexical } : {}),
      ...(e.semantic !== undefined ? { semantic: e.semantic } : {}),
      ...(e.hint !== undefined ? { hint: e.hint } : {}),
      ...(e.traversal !== undefined ? { traversal: e.traversal } : {}),
      ...(e.linked !== undefined ? { linked: e.linked } : {}),
    },
    tags: parseTags(row.tags),
    project: row.project,
    who: row.who,
    importance: row.importance,
    pinned: row.pinned === 1,
    createdAt: row.created_at,
    ...(row.source_type && row.source_id ? { source: { type: row.source_type, id: row.source_id } } : {}),
    ...(entities ? { entities: entities.map((x) => ({ id: x.id, name: x.name })) } : {}),
    ...(explain
      ? {
          explanation: {
            fused,
            adjustments,
            anchored,
            ...(c.path ? { path: c.path } : {}),
            ...(c.linkedBy ? { linkedBy: c.linkedBy } : {}),
          },
        }
      : {}),
  };
}
