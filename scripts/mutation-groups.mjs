// The modules where a silent bug costs most, grouped for mutation testing (`npm run test:mutation`).
// Each group names the source it mutates and the test files that guard it: Stryker runs only those
// (the covering tests of each mutant among them), so a group's score is what its own tests catch,
// a lower bound of what the whole suite catches. Line ranges (`file:from-to`) keep a group to the
// code it is about.

/** @type {Record<string, { mutate: string[], tests: string[], why: string }>} */
export const MUTATION_GROUPS = {
  'text-index': {
    why: "the per-agent text index: BM25 from the agent's own statistics, its postings writes, lexical search over it",
    mutate: [
      'packages/store/src/repositories/scoped-text-search.ts',
      'packages/store/src/repositories/lexical-search.ts',
      'packages/store/src/repositories/text-index-writes.ts',
      'packages/store/src/memory-writer/text-index-batch.ts',
    ],
    // The store's own tests of these modules. The engine's recall and scope-pure ranking tests run the
    // same code through the whole engine and stay in the suite; here they made every surviving or
    // timed-out mutant cost minutes, so the group's score is what the store tests alone catch.
    tests: [
      'packages/store/test/scoped-bm25.test.ts',
      'packages/store/test/text-index.test.ts',
      'packages/store/test/lexical-search.test.ts',
    ],
  },
  'scope-filters': {
    why: 'store reads that apply the agent scope: hints, recall reads, transcripts',
    mutate: [
      'packages/store/src/repositories/hints.ts',
      'packages/store/src/repositories/recall-reads.ts',
      'packages/store/src/repositories/transcripts.ts',
    ],
    tests: [
      'packages/store/test/lexical-search.test.ts',
      'packages/store/test/repositories.test.ts',
      'packages/store/test/hints.test.ts',
      'packages/store/test/hints-search.test.ts',
      'packages/engine/test/scope-isolation.property.test.ts',
      'packages/engine/test/recall-scope.property.test.ts',
      'packages/engine/test/scope.test.ts',
      'packages/engine/test/recall.test.ts',
      'packages/engine/test/hybrid-recall.test.ts',
      'packages/engine/test/transcripts.test.ts',
      'packages/engine/test/transcripts-scope.test.ts',
      'packages/engine/test/transcripts-search-order.test.ts',
      'packages/engine/test/recall-reads.test.ts',
      'packages/engine/test/hints-worker.test.ts',
      'packages/engine/test/memory-writer.property.test.ts',
      'packages/engine/test/imports.test.ts',
      'packages/engine/test/imports-checkpoint.test.ts',
      'packages/dreaming/test/tools.test.ts',
    ],
  },
  dedup: {
    why: 'content-hash dedup: the memories repository, the memory writer create path, the batch dedup of rememberMany',
    mutate: [
      'packages/store/src/repositories/memories.ts',
      'packages/store/src/memory-writer/create-memories.ts',
      'packages/ingest/src/remember.ts:39-49',
    ],
    tests: [
      'packages/engine/test/dedup-scope.test.ts',
      'packages/engine/test/remember.test.ts',
      'packages/engine/test/lifecycle.test.ts',
      'packages/engine/test/memory-writer.property.test.ts',
      'packages/ingest/test/remember-scope.test.ts',
      'packages/store/test/repositories.test.ts',
      'packages/store/test/create-memories.test.ts',
    ],
  },
  queue: {
    why: "the queue's lease and fail operations and the lease guard every holder's call goes through",
    mutate: [
      'packages/queue/src/operations/lease.ts',
      'packages/queue/src/operations/fail.ts',
      'packages/queue/src/operations/lease-guard.ts',
    ],
    tests: [
      'packages/queue/test/transitions.test.ts',
      'packages/queue/test/lease-token.test.ts',
      'packages/queue/test/lease-order.test.ts',
      'packages/queue/test/model.test.ts',
      'packages/queue/test/worker.test.ts',
    ],
  },
  'transaction-guard': {
    why: 'no provider call inside a write transaction, no async write callback',
    mutate: ['packages/store/src/transaction-guard.ts', 'packages/store/src/open-store.ts:186-206'],
    tests: [
      'packages/store/test/transaction-guard.test.ts',
      'packages/store/test/transaction-guard-checks.test.ts',
      'packages/store/test/store.test.ts',
    ],
  },
  citations: {
    why: "Dreaming's citation check: evidence in scope, quoted verbatim",
    mutate: ['packages/dreaming/src/citations.ts'],
    tests: [
      'packages/dreaming/test/citations.test.ts',
      'packages/dreaming/test/citations-verbatim.test.ts',
      'packages/dreaming/test/apply.test.ts',
    ],
  },
  imports: {
    why: 'the import state machine: inventory checkpoints, batches, ownership, pause/resume/cancel, final status',
    // The state machine itself; record validation, spooling, line scanning and the views are other
    // subjects (and another change is reworking the validators).
    mutate: [
      'packages/ingest/src/imports/context.ts',
      'packages/ingest/src/imports/run-import.ts',
      'packages/ingest/src/imports/inventory.ts',
      'packages/ingest/src/imports/process-records.ts',
      'packages/ingest/src/imports/set-status.ts',
    ],
    // Fast, targeted files first: each mutant's tests run in this order and stop at the first failure.
    tests: [
      'packages/engine/test/imports-runs.test.ts',
      'packages/engine/test/imports-batches.test.ts',
      'packages/engine/test/imports-state-machine.test.ts',
      'packages/engine/test/imports-races.test.ts',
      'packages/engine/test/imports-status.test.ts',
      'packages/engine/test/imports-checkpoint.test.ts',
      'packages/engine/test/imports.test.ts',
      'packages/engine/test/imports-hardening.test.ts',
      'packages/engine/test/export.test.ts',
      'packages/engine/test/scope-isolation.property.test.ts',
    ],
  },
  'address-guard': {
    why: 'which addresses a document fetch may reach (SSRF)',
    mutate: ['packages/ingest/src/documents/address-guard.ts'],
    tests: [
      'packages/ingest/test/documents-units.test.ts',
      'packages/ingest/test/address-guard.test.ts',
      'packages/ingest/test/fetch-document.test.ts',
    ],
  },
  fusion: {
    why: "recall's fusion, dampening and recency (pure scoring)",
    mutate: ['packages/recall/src/shaping.ts'],
    tests: [
      'packages/recall/test/shaping.test.ts',
      'packages/recall/test/shaping-edges.test.ts',
      'packages/engine/test/recall-min-score.test.ts',
      'packages/engine/test/hybrid-recall.test.ts',
    ],
  },
  'vector-index': {
    why: 'what a vector search reports (exact or approximate, probes, searched, the recall it stands behind), partitions, the build-time recall estimate and the audits of real queries',
    mutate: [
      'packages/store/src/vector-index/search.ts',
      'packages/store/src/vector-index/partitions.ts',
      'packages/store/src/vector-index/recall-estimate.ts',
      'packages/store/src/vector-index/audits.ts',
    ],
    tests: [
      'packages/store/test/vector-search-runs.test.ts',
      'packages/store/test/vector-index-honesty.test.ts',
      'packages/store/test/vector-index.test.ts',
    ],
  },
};
