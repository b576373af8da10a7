import type { MemoryConfig } from '@memory/core';
import type { Recall } from '@memory/recall';
import {
  canonicalEntityName,
  entityAspectClaimsProgram,
  entityLinksProgram,
  excludeEvidenceSourceProgram,
  findActiveEntityProgram,
  findRunbookNotesProgram,
  insertEvidenceReviewProgram,
  listOpenAttentionProgram,
  listOpenContradictionsProgram,
  MEMORY_TYPES,
  type MemoryWriteDeps,
  type PortableStore,
  saveRunbookNotesProgram,
  searchEntitiesByNameProgram,
  searchTranscriptTurnsProgram,
} from '@memory/store';
import { z } from 'zod';
import type { AgentTool } from './agent.js';
import { type ApplyResult, applyDreamingOperationsOn } from './apply.js';
import { lookupEvidenceProgram, parseSourceRef } from './evidence.js';
import type { EvidenceFragment } from './evidence-window.js';
import { readMemoryHeadProgram, writeMemoryHeadProgram } from './memory-head.js';
import { citationSchema, parseOperations } from './operations.js';
import { decideOperationsProgram } from './validate.js';

/** Results of each kind `search_evidence` returns. */
const EVIDENCE_RESULTS = 10;
/** Memories `search_evidence` may return: a document chunk is cited through its document (`document:<id>`). */
const EVIDENCE_MEMORY_TYPES = MEMORY_TYPES.filter((t) => t !== 'document_chunk');

/** The tools of one pass, all scoped to its agent. */
export function passTools(
  store: PortableStore,
  config: MemoryConfig,
  agentId: string,
  passId: string,
  contentMode: boolean,
  fragments: readonly EvidenceFragment[],
  pulled: Map<string, number>,
  applyResults: ApplyResult[],
  memoryWrites: MemoryWriteDeps,
  recall: Recall,
): AgentTool<never>[] {
  let cursor = 0;
  const pageSize = config.dreaming.evidencePageSize;
  const nextEvidence: AgentTool<Record<string, never>> = {
    name: 'next_evidence',
    description: 'The next page of new evidence fragments: { sourceRef, offset, text }. Quote from these.',
    input: z.strictObject({}),
    run: () => {
      const page = fragments.slice(cursor, cursor + pageSize);
      cursor += page.length;
      for (const f of page) pulled.set(f.sourceRef, Math.max(pulled.get(f.sourceRef) ?? 0, f.offset + f.text.length));
      return {
        fragments: page,
        remaining: fragments.length - cursor,
        ...(page.length === 0 ? { note: 'no more evidence in this pass' } : {}),
      };
    },
  };
  const searchEntities: AgentTool<{ query: string }> = {
    name: 'search_entities',
    description: 'Entities of this agent whose name or alias contains the query.',
    input: z.strictObject({ query: z.string().min(1).max(200) }),
    run: ({ query }) => store.db.read(() => searchEntitiesByNameProgram(agentId, query, 20)),
  };
  const getEntity: AgentTool<{ entityId: string }> = {
    name: 'get_entity',
    description: "An entity's active aspects and their active claims.",
    input: z.strictObject({ entityId: z.string().min(1).max(200) }),
    run: ({ entityId }) =>
      store.db.read(function* () {
        const entity = yield* findActiveEntityProgram(agentId, entityId);
        if (!entity) return { error: `entity ${entityId} not found in this scope` };
        const claims = yield* entityAspectClaimsProgram(agentId, entityId, 200);
        return { entity, claims };
      }),
  };
  const listAttention: AgentTool<Record<string, never>> = {
    name: 'list_attention',
    description: 'Open attention records (what needs hygiene or review), highest priority first.',
    input: z.strictObject({}),
    run: () => store.db.read(() => listOpenAttentionProgram(agentId, 50)),
  };
  const apply: AgentTool<{ operations: unknown[] }> = {
    name: 'apply_operations',
    description:
      'Apply operations through the audited seam. Each needs exact-quote evidence (or attention for hygiene). Returns applied, rejected (with reasons) and proposals.',
    input: z.strictObject({ operations: z.array(z.unknown()).min(1).max(100) }),
    run: async ({ operations }) => {
      const result = await applyDreamingOperationsOn(store, config, { agentId, passId }, operations, memoryWrites);
      applyResults.push(result);
      return result;
    },
  };
  const searchEvidence: AgentTool<{ query: string }> = {
    name: 'search_evidence',
    description:
      "Search this agent's completed conversations and memories by words; returns { sourceRef, text } you may quote.",
    input: z.strictObject({ query: z.string().min(1).max(500) }),
    run: async ({ query }) => {
      // Memories through the one recall path (every channel, all dates); completed transcript turns
      // through the store's transcript search, with the terms recall tokenized.
      const recalled = await recall({
        agentId,
        query,
        limit: EVIDENCE_RESULTS,
        type: EVIDENCE_MEMORY_TYPES,
        windowDays: null,
      });
      const turns = (
        await store.db.read(() =>
          searchTranscriptTurnsProgram({
            agentId,
            terms: recalled.query,
            completedOnly: true,
            limit: EVIDENCE_RESULTS,
          }),
        )
      ).map((t) => ({ sourceRef: `transcript:${t.session_key}`, text: t.content }));
      const memories = recalled.results.map((m) => ({ sourceRef: `memory:${m.id}`, text: m.content }));
      return [...turns, ...memories];
    },
  };
  const walkLinks: AgentTool<{ entityId: string }> = {
    name: 'walk_links',
    description: 'Active links from and to an entity, with the other end.',
    input: z.strictObject({ entityId: z.string().min(1).max(200) }),
    run: ({ entityId }) => store.db.read(() => entityLinksProgram(agentId, entityId, 100)),
  };
  const validate: AgentTool<{ operations: unknown[] }> = {
    name: 'validate_operations',
    description:
      'Dry run: how the seam would decide these operations (applied, rejected with reasons, proposals for contradictions), plus warnings for weak names. Writes nothing.',
    input: z.strictObject({ operations: z.array(z.unknown()).min(1).max(100) }),
    run: async ({ operations }) => {
      const parsed = parseOperations(operations);
      if (!parsed.ok) return { error: parsed.reason };
      const decisions = await store.db.read(() => decideOperationsProgram(agentId, config.dreaming, parsed.valid));
      const warnings = parsed.valid.flatMap(({ index, operation }) =>
        operation.operation === 'create_entity' && isWeakLabel(operation.payload.name)
          ? [{ index, warning: `"${operation.payload.name}" is a weak name: use the specific name the evidence gives` }]
          : [],
      );
      return {
        rejected: parsed.rejected,
        decisions: decisions.map((d) =>
          d.status === 'rejected'
            ? { index: d.index, status: d.status, reason: d.reason }
            : d.status === 'proposal'
              ? { index: d.index, status: d.status, route: d.route }
              : { index: d.index, status: d.status },
        ),
        warnings,
      };
    },
  };
  const listContradictions: AgentTool<Record<string, never>> = {
    name: 'list_contradictions',
    description: 'Open contradictions between proposed and active claims.',
    input: z.strictObject({}),
    run: () => store.db.read(() => listOpenContradictionsProgram(agentId, 50)),
  };
  const readRunbook: AgentTool<Record<string, never>> = {
    name: 'read_runbook',
    description: 'Your notes from earlier passes for this agent (conventions, open questions).',
    input: z.strictObject({}),
    run: async () => ({ notes: await store.db.read(() => findRunbookNotesProgram(agentId)) }),
  };
  const writeRunbook: AgentTool<{ notes: string }> = {
    name: 'write_runbook',
    description: 'Replace your notes for later passes (at most 4,000 characters).',
    input: z.strictObject({ notes: z.string().max(4000) }),
    run: async ({ notes }) => {
      const now = store.clock.now();
      await store.db.write(() => saveRunbookNotesProgram(agentId, notes, now));
      return { saved: true };
    },
  };
  const excludeEvidence: AgentTool<{ sourceRef: string; reason: string }> = {
    name: 'exclude_evidence',
    description: 'Stop delivering a source that holds nothing worth keeping (spam, test chatter).',
    input: z.strictObject({ sourceRef: z.string().min(1).max(600), reason: z.string().min(1).max(500) }),
    run: async ({ sourceRef, reason }) => {
      const ref = parseSourceRef(sourceRef);
      if (!ref || ref.kind === 'attention') return { error: 'not an evidence reference' };
      const found = await store.db.read(() => lookupEvidenceProgram(agentId, ref));
      if (!found.found && found.reason !== 'not_completed') return { error: `${sourceRef}: ${found.reason}` };
      const now = store.clock.now();
      await store.db.write(() => excludeEvidenceSourceProgram({ agentId, sourceRef, reason, passId, now }));
      return { excluded: sourceRef };
    },
  };
  const reviewEvidence: AgentTool<{
    sourceRef: string;
    verdict: 'consolidated' | 'nothing_durable' | 'needs_more_context' | 'contradicts_graph';
    notes?: string | undefined;
  }> = {
    name: 'review_evidence',
    description:
      'Record what you concluded about a source (consolidated, nothing durable, needs more context, contradicts the graph).',
    input: z.strictObject({
      sourceRef: z.string().min(1).max(600),
      verdict: z.enum(['consolidated', 'nothing_durable', 'needs_more_context', 'contradicts_graph']),
      notes: z.string().max(1000).optional(),
    }),
    run: async ({ sourceRef, verdict, notes }) => {
      const ref = parseSourceRef(sourceRef);
      const found =
        ref && ref.kind !== 'attention' ? await store.db.read(() => lookupEvidenceProgram(agentId, ref)) : undefined;
      if (!found?.found) return { error: `${sourceRef} is not this agent's evidence` };
      const now = store.clock.now();
      await store.db.write(() =>
        insertEvidenceReviewProgram({ agentId, sourceRef, passId, verdict, notes: notes ?? null, now }),
      );
      return { recorded: true };
    },
  };
  const tools: AgentTool<never>[] = [
    reviewEvidence,
    nextEvidence,
    searchEvidence,
    searchEntities,
    getEntity,
    walkLinks,
    listAttention,
    listContradictions,
    validate,
    apply,
    readRunbook,
    writeRunbook,
    excludeEvidence,
  ] as unknown as AgentTool<never>[];
  if (contentMode) {
    const writeHead: AgentTool<{
      entries: Array<{ text: string; evidence: Array<{ sourceRef: string; quote: string }> }>;
      expectedRevision: number;
      expectedHash: string;
    }> = {
      name: 'write_memory_head',
      description:
        'Replace MEMORY.md, the short curated head of what matters most (about 1,000 tokens). Each entry needs exact-quote evidence. Pass the revision and hash you read with read_memory_head.',
      input: z.strictObject({
        entries: z
          .array(z.strictObject({ text: z.string().min(1).max(400), evidence: z.array(citationSchema).min(1).max(5) }))
          .min(1)
          .max(40),
        expectedRevision: z.number().int().min(0),
        expectedHash: z.string().max(100),
      }),
      run: (input) => {
        const now = store.clock.now();
        return store.db.write(() => writeMemoryHeadProgram({ agentId, passId, now, ...input }));
      },
    };
    const readHead: AgentTool<Record<string, never>> = {
      name: 'read_memory_head',
      description: 'The current MEMORY.md head with its revision and hash.',
      input: z.strictObject({}),
      run: async () =>
        (await store.db.read(() => readMemoryHeadProgram(agentId))) ?? { revision: 0, contentHash: '', content: '' },
    };
    tools.push(readHead as unknown as AgentTool<never>, writeHead as unknown as AgentTool<never>);
  }
  return tools;
}

const WEAK_LABELS = new Set([
  'thing',
  'things',
  'stuff',
  'it',
  'this',
  'that',
  'item',
  'user',
  'person',
  'someone',
  'something',
  'topic',
  'issue',
  'project',
  'task',
]);

/** A name too short or too generic to identify anything. */
function isWeakLabel(name: string): boolean {
  const key = canonicalEntityName(name);
  return key.length < 3 || WEAK_LABELS.has(key);
}
