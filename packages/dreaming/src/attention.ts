import type { MemoryConfig } from '@memory/core';
import {
  activeClaimsPastValidityProgram,
  aspectsOverClaimCapProgram,
  countOpenAttentionProgram,
  entitiesNamedLikeAnotherAliasProgram,
  entitiesOverAspectCapProgram,
  entitiesWithoutContentProgram,
  openAttentionProgram,
  type Program,
  runSqliteProgram,
  type SqlExecutor,
} from '@memory/store';

/** Most records each detector opens per run. */
const PER_DETECTOR = 500;

interface Finding {
  readonly kind: 'hygiene' | 'review_due';
  readonly subjectRef: string;
  readonly priority: number;
  readonly details: string;
}

const DETECTORS: ReadonlyArray<(agentId: string, policy: MemoryConfig['dreaming'], now: number) => Program<Finding[]>> =
  [
    // An entity whose name is another active entity's alias: the same thing under two entries.
    function* (agentId) {
      return (yield* entitiesNamedLikeAnotherAliasProgram(agentId, PER_DETECTOR)).map((r) => ({
        kind: 'hygiene',
        subjectRef: `entity:${r.id}`,
        priority: 80,
        details: `"${r.name}" is also an alias of ${r.other} ("${r.otherName}"): merge them`,
      }));
    },
    // An entity with no active aspect and no active claim says nothing.
    function* (agentId) {
      return (yield* entitiesWithoutContentProgram(agentId, PER_DETECTOR)).map((r) => ({
        kind: 'hygiene',
        subjectRef: `entity:${r.id}`,
        priority: 30,
        details: `"${r.name}" has no aspects or claims: describe it from evidence, merge it, or archive it`,
      }));
    },
    function* (agentId, policy) {
      return (yield* entitiesOverAspectCapProgram(agentId, policy.maxAspectsPerEntity, PER_DETECTOR)).map((r) => ({
        kind: 'hygiene',
        subjectRef: `entity:${r.id}`,
        priority: 60,
        details: `${r.n} active aspects, over the cap of ${policy.maxAspectsPerEntity}: merge or archive some`,
      }));
    },
    function* (agentId, policy) {
      return (yield* aspectsOverClaimCapProgram(agentId, policy.maxClaimsPerAspect, PER_DETECTOR)).map((r) => ({
        kind: 'hygiene',
        subjectRef: `aspect:${r.id}`,
        priority: 60,
        details: `${r.n} active claims, over the cap of ${policy.maxClaimsPerAspect}: supersede or archive some`,
      }));
    },
    // A claim whose validity ended is still marked active: review it.
    function* (agentId, _policy, now) {
      return (yield* activeClaimsPastValidityProgram(agentId, now, PER_DETECTOR)).map((r) => ({
        kind: 'review_due',
        subjectRef: `claim:${r.id}`,
        priority: 50,
        details: `"${r.content.slice(0, 120)}" is past its validity: supersede or archive it`,
      }));
    },
  ];

/** Open attention records of one agent. */
export function openAttentionCount(sql: SqlExecutor, agentId: string): number {
  return runSqliteProgram(sql, countOpenAttentionProgram(agentId));
}

/**
 * Deterministic hygiene detection for one agent: duplicate entities (a name that is another
 * entity's alias), entities with no active aspects or claims, over-cap aspects and claims, and
 * active claims past their validity. Opens one attention record per finding (an open record for
 * the same kind and subject is kept, not duplicated). Returns how many were opened.
 */
export function detectAttention(
  sql: SqlExecutor,
  agentId: string,
  policy: MemoryConfig['dreaming'],
  now: number,
  nextId: () => string,
): number {
  return runSqliteProgram(sql, detectAttentionProgram(agentId, policy, now, nextId));
}

/** {@link detectAttention} as a program (both dialects). */
export function* detectAttentionProgram(
  agentId: string,
  policy: MemoryConfig['dreaming'],
  now: number,
  nextId: () => string,
): Program<number> {
  let opened = 0;
  for (const detect of DETECTORS) {
    for (const f of yield* detect(agentId, policy, now)) {
      opened += yield* openAttentionProgram({
        id: nextId(),
        agentId,
        kind: f.kind,
        subjectRef: f.subjectRef,
        priority: f.priority,
        details: f.details,
        createdBy: 'engine',
        now,
      });
    }
  }
  return opened;
}
