import { agentIdSchema, parseInput, timeSchema } from '@memory/core';
import {
  type AspectView,
  activeLinksAroundProgram,
  type ClaimAsOf,
  type ClaimView,
  canonicalEntityName,
  claimsAsOfProgram,
  type EntityView,
  findEntitiesByIdsProgram,
  type LinkView,
  listEntitiesProgram,
  listEntityAliasesProgram,
  listEntityAspectsProgram,
  listEntityClaimsProgram,
  listEntityLinksProgram,
  listEntityMentionsProgram,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { decodeCursor, type Page, pageSchema, toPage } from './paging.js';

export type { AspectView, EntityView, LinkView } from '@memory/store';

/** A citation of evidence: a verbatim quote and where it is from. */
export interface Citation {
  readonly sourceRef: string;
  readonly quote: string;
}

/** A claim with its event time (`validFrom`, `validUntil`, `occurredAt`) and record time (`createdAt`, `supersededAt`). */
export type ClaimDetail = Omit<ClaimView, 'evidenceJson'> & { readonly evidence: readonly Citation[] };

/** An entity with what is attached to it. Lists are bounded; `mentionedIn.total` counts them all. */
export interface EntityDetail extends EntityView {
  readonly aliases: readonly string[];
  /** Aspects with their claims (active and superseded; archived too with `includeArchived`). */
  readonly aspects: ReadonlyArray<AspectView & { readonly claims: readonly ClaimDetail[] }>;
  /** True when the entity has more claims than were returned. */
  readonly claimsTruncated: boolean;
  /** Live memories that mention the entity, newest first (`mentions` is the stored count). */
  readonly mentionedIn: {
    readonly total: number;
    readonly items: ReadonlyArray<{
      readonly memoryId: string;
      readonly mentionText: string | null;
      readonly confidence: number;
      readonly createdAt: number;
    }>;
  };
  readonly links: readonly LinkView[];
}

/** Entities around one, breadth-first over active links, to a bounded depth and size. */
export interface Neighbourhood {
  readonly center: string;
  readonly nodes: ReadonlyArray<EntityView & { readonly depth: number }>;
  /** Active links between the nodes. */
  readonly links: readonly LinkView[];
  /** True when the size bound stopped the walk before the depth did. */
  readonly truncated: boolean;
}

const listEntitiesSchema = z.strictObject({
  agentId: agentIdSchema,
  /** @default 'active' */
  status: z.enum(['active', 'archived', 'all']).optional(),
  /** Only entities whose name or an alias contains this (case-insensitive). */
  query: z.string().trim().min(1).max(200).optional(),
  ...pageSchema(200),
});
const entitySchema = z.strictObject({
  agentId: agentIdSchema,
  entityId: z.string().min(1).max(200),
  /** Archived aspects, claims and links too. @default false */
  includeArchived: z.boolean().optional(),
  /** Mentions listed (the total is always counted). @default 20 */
  mentionsLimit: z.number().int().min(0).max(200).optional(),
});
const neighbourhoodSchema = z.strictObject({
  agentId: agentIdSchema,
  entityId: z.string().min(1).max(200),
  /** Link hops from the entity, 1..3. @default 1 */
  depth: z.number().int().min(1).max(3).optional(),
  /** Most entities returned, the center included, 2..200. @default 50 */
  limit: z.number().int().min(2).max(200).optional(),
});
const claimsAsOfSchema = z.strictObject({
  agentId: agentIdSchema,
  entityId: z.string().min(1).max(200),
  asOf: timeSchema,
});

export type ListEntitiesInput = z.input<typeof listEntitiesSchema>;
export type EntityInput = z.input<typeof entitySchema>;
export type NeighbourhoodInput = z.input<typeof neighbourhoodSchema>;

/** The agent's knowledge graph, read-only: what Dreaming concluded, with its event and record times. */
export interface EngineGraph {
  /** Entities by name, keyset-paged (`limit` default 50, at most 200). */
  entities(input: ListEntitiesInput): Promise<Page<EntityView>>;
  /** One entity with aliases, aspects, claims, mentions and links; undefined outside the scope. */
  entity(input: EntityInput): Promise<EntityDetail | undefined>;
  /** The entities around one over active links; undefined outside the scope. */
  neighbourhood(input: NeighbourhoodInput): Promise<Neighbourhood | undefined>;
  /** The claims about an entity that were true at `asOf` (event time), superseded ones included. */
  claimsAsOf(input: { agentId: string; entityId: string; asOf: number | string | Date }): Promise<ClaimAsOf[]>;
}

const ENTITY_CURSOR = z.tuple([z.string(), z.string()]);
const MAX_ASPECTS = 200;
const MAX_CLAIMS = 500;
const MAX_ALIASES = 100;
const MAX_LINKS = 200;

function parseEvidence(json: string): Citation[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as Citation[]) : [];
  } catch {
    return [];
  }
}

/** A page of the agent's entities. */
export async function entities(ctx: EngineContext, input: unknown): Promise<Page<EntityView>> {
  const request = parseInput(listEntitiesSchema, input, 'graph.entities');
  const limit = request.limit ?? 50;
  const after = decodeCursor(request.cursor, ENTITY_CURSOR, 'graph.entities');
  const status = request.status ?? 'active';
  const rows = await ctx.portable.db.read(() =>
    listEntitiesProgram(
      request.agentId,
      {
        status: status === 'all' ? null : status,
        query: request.query === undefined ? null : canonicalEntityName(request.query),
      },
      after ? { canonicalName: after[0], id: after[1] } : null,
      limit + 1,
    ),
  );
  return toPage(
    rows,
    limit,
    (r) => [r.canonicalName, r.id],
    ({ canonicalName: _canonical, ...view }) => view,
  );
}

/** One entity with everything attached to it, read in one snapshot. */
export function entity(ctx: EngineContext, input: unknown): Promise<EntityDetail | undefined> {
  const request = parseInput(entitySchema, input, 'graph.entity');
  const { agentId, entityId } = request;
  const archived = request.includeArchived === true;
  return ctx.portable.db.read(function* () {
    const [row] = yield* findEntitiesByIdsProgram(agentId, [entityId]);
    if (!row) return undefined;
    const aspects = yield* listEntityAspectsProgram(agentId, entityId, archived, MAX_ASPECTS);
    const statuses = archived ? ['active', 'superseded', 'archived'] : ['active', 'superseded'];
    const claims = yield* listEntityClaimsProgram(agentId, entityId, statuses, MAX_CLAIMS + 1);
    const byAspect = new Map<string, ClaimDetail[]>(aspects.map((a) => [a.id, []]));
    for (const { evidenceJson, ...claim } of claims.slice(0, MAX_CLAIMS))
      byAspect.get(claim.aspectId)?.push({ ...claim, evidence: parseEvidence(evidenceJson) });
    const aliases = yield* listEntityAliasesProgram(agentId, entityId, MAX_ALIASES);
    const mentionedIn = yield* listEntityMentionsProgram(agentId, entityId, request.mentionsLimit ?? 20);
    const links = yield* listEntityLinksProgram(agentId, entityId, archived, MAX_LINKS);
    return {
      ...row,
      aliases: aliases.map((a) => a.alias),
      aspects: aspects.map((a) => ({ ...a, claims: byAspect.get(a.id) ?? [] })),
      claimsTruncated: claims.length > MAX_CLAIMS,
      mentionedIn,
      links,
    };
  });
}

/** Breadth-first over active links from one entity, bounded by depth and by size. */
export function neighbourhood(ctx: EngineContext, input: unknown): Promise<Neighbourhood | undefined> {
  const request = parseInput(neighbourhoodSchema, input, 'graph.neighbourhood');
  const { agentId, entityId } = request;
  const depth = request.depth ?? 1;
  const limit = request.limit ?? 50;
  return ctx.portable.db.read(function* () {
    const [center] = yield* findEntitiesByIdsProgram(agentId, [entityId]);
    if (!center) return undefined;
    const depths = new Map<string, number>([[entityId, 0]]);
    const links = new Map<string, LinkView>();
    let frontier = [entityId];
    let truncated = false;
    for (let d = 1; d <= depth && frontier.length > 0; d++) {
      const next: string[] = [];
      // A step reads at most a few links per node it may still add: the size bound caps the walk.
      for (const link of yield* activeLinksAroundProgram(agentId, frontier, limit * 4)) {
        for (const end of [link.sourceId, link.targetId]) {
          if (depths.has(end)) continue;
          if (depths.size >= limit) {
            truncated = true;
            continue;
          }
          depths.set(end, d);
          next.push(end);
        }
        if (depths.has(link.sourceId) && depths.has(link.targetId)) links.set(link.id, link);
      }
      frontier = next;
    }
    const nodes = (yield* findEntitiesByIdsProgram(agentId, [...depths.keys()]))
      .map((e) => ({ ...e, depth: depths.get(e.id) ?? 0 }))
      .sort((a, b) => a.depth - b.depth || a.name.localeCompare(b.name));
    return { center: entityId, nodes, links: [...links.values()], truncated };
  });
}

/** The claims about an entity that were true at `asOf` (event time). */
export function claimsAt(ctx: EngineContext, input: unknown, operation = 'graph.claimsAsOf'): Promise<ClaimAsOf[]> {
  const { agentId, entityId, asOf } = parseInput(claimsAsOfSchema, input, operation);
  return ctx.portable.db.read(() => claimsAsOfProgram(agentId, entityId, asOf));
}
