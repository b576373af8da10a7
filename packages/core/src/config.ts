import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { MemoryError } from './errors.js';

const positiveInt = (max: number) => z.number().int().positive().max(max);

/** Input size caps. Every input the engine accepts is bounded. */
const limitsSchema = z.strictObject({
  /** Largest memory content in UTF-8 bytes. @default 65536 (64 KiB) */
  maxContentBytes: positiveInt(16 * 1024 * 1024).default(64 * 1024),
  /** Most tags on one memory. @default 32 */
  maxTags: positiveInt(1000).default(32),
  /** Longest tag, in characters. @default 64 */
  maxTagLength: positiveInt(1024).default(64),
  /** Most host references (`linkedEntities`) on one memory. @default 32 */
  maxLinkedEntities: positiveInt(1000).default(32),
  /** Longest recall query, in characters. @default 8192 */
  maxQueryChars: positiveInt(1024 * 1024).default(8192),
  /** Most inputs one `rememberMany` call accepts. @default 100000 */
  maxBatchInputs: positiveInt(10_000_000).default(100_000),
});

/** How `remember` writes. */
const rememberSchema = z.strictObject({
  /**
   * Memories written per transaction by `rememberMany`. Small batches keep each synchronous
   * transaction short (ARCHITECTURE §2.5); the engine yields to the event loop between batches.
   * 100 kept the longest event-loop stall near 40 ms in the 100k benchmark at the same throughput as 200.
   * A maximum: after a transaction (body and commit) over ~25 ms the next holds proportionally fewer.
   * @default 100
   */
  batchSize: positiveInt(5000).default(100),
  /**
   * Content bytes per `rememberMany` transaction: a batch closes at `batchSize` memories or this many
   * bytes, whichever comes first, so large memories do not make one long transaction. Indexing
   * 128 KiB (full-text and vectors) takes ~10–20 ms, inside the 50 ms event-loop budget; 1 MiB
   * took ~100 ms with 64 KiB memories.
   * @default 131072 (128 KiB)
   */
  batchBytes: positiveInt(256 * 1024 * 1024).default(128 * 1024),
  /** Importance given when the caller passes none. @default 0.5 */
  defaultImportance: z.number().min(0).max(1).default(0.5),
  /** Link new memories to entities that already exist for the agent (mentions only). @default true */
  inlineEntityLinking: z.boolean().default(true),
  /**
   * Conflict detection on write (seed 003): with an embedder, a new memory of a durable kind that
   * restates or updates an active memory of the same kind updates it instead of being added beside
   * it (history keeps both contents). `remember({ conflict: false })` opts one call out.
   */
  conflict: z
    .strictObject({
      /** @default true */
      enabled: z.boolean().default(true),
      /** Kinds checked. @default the seed's durable kinds */
      types: z
        .array(z.string().min(1).max(64))
        .max(32)
        .default(['decision', 'agreement', 'incident', 'preference', 'operating_rule', 'project_context']),
      /**
       * Cosine similarity at or above which a candidate is considered, for embedders that declare
       * no `conflictThreshold` of their own (the seed's 0.85 assumes a strong model). A merge also
       * needs the same subjects and no meaning-changing difference (see README "Conflict detection").
       * @default 0.85
       */
      threshold: z.number().min(0).max(1).default(0.85),
      /**
       * Unused: candidates are found by the conflict rule's key and every one is judged (it was the
       * number of nearest memories compared). Accepted so existing configurations stay valid. @default 10
       */
      candidates: positiveInt(100).default(10),
    })
    .prefault({}),
});

/** Recall shaping. */
const recallSchema = z.strictObject({
  /** Channels recall runs; each can be turned off (semantic also needs an embedder). */
  channels: z
    .strictObject({
      /** BM25 over FTS5. @default true */
      lexical: z.boolean().default(true),
      /** Vector similarity (vec0 KNN, or the scan fallback). @default true */
      semantic: z.boolean().default(true),
      /** FTS over prospective hints. @default true */
      hints: z.boolean().default(true),
    })
    .prefault({}),
  /** Results returned when `limit` is not given. @default 10 */
  defaultLimit: positiveInt(1000).default(10),
  /** Largest `limit` accepted. @default 50 */
  maxLimit: positiveInt(1000).default(50),
  /** Query tokens kept after stop-word removal (the rest are ignored). @default 24 */
  maxQueryTokens: positiveInt(256).default(24),
  /**
   * Up to this many tokens are ANDed (every token must match); beyond it they are ORed. When an AND
   * query finds fewer results than the limit, an OR query fills the remaining places.
   * @default 3
   */
  andTokenLimit: z.number().int().min(0).max(64).default(3),
  /** Most lexical candidates read per query; a query reads five per result asked for, at least 50. @default 200 */
  lexicalCandidates: positiveInt(10_000).default(200),
  /** Most nearest vectors read per query (vec0 KNN or the scan fallback); a query reads five per result asked for, at least 50. @default 100 */
  semanticCandidates: positiveInt(4096).default(100),
  /** Hint matches read per query. @default 50 */
  hintCandidates: positiveInt(10_000).default(50),
  /** Memories reached through host references (`linkedEntities`) per query. @default 100 */
  linkedCandidates: positiveInt(10_000).default(100),
  /**
   * Without sqlite-vec, the semantic channel scans this many of the agent's newest vectors and the
   * response says `vectorCompleteness: "recent-window"`. @default 10000
   */
  vectorScanWindow: positiveInt(1_000_000).default(10_000),
  /**
   * Days of memories searched when a query gives no `windowDays` (by creation time; pinned memories
   * are always in the window). `null` searches everything. @default 90
   */
  searchWindowDays: z.number().positive().max(36_500).nullable().default(90),
  /** The window `recentOnly: true` uses. @default 7 */
  recentOnlyDays: z.number().positive().max(36_500).default(7),
  /** How channel scores combine: a weighted sum of normalized scores, or reciprocal-rank fusion. @default 'weighted' */
  fusion: z.enum(['weighted', 'rrf']).default('weighted'),
  /**
   * Weight of the semantic score when both semantic and lexical scores exist. 0.3 was chosen on the
   * dev splits (LoCoMo conversations 1–5, SciFact train claims) with the offline embedder: the
   * highest LoCoMo gain that does not put hybrid below lexical on SciFact (0.7 did: −0.046 nDCG@10
   * on dev, −0.062 on test). With a strong embedder, raise it. @default 0.3
   */
  semanticWeight: z.number().min(0).max(1).default(0.3),
  /** Weight of the lexical score when both exist. @default 0.7 */
  lexicalWeight: z.number().min(0).max(1).default(0.7),
  /** RRF constant k in 1 / (k + rank). @default 60 */
  rrfK: z.number().positive().max(10_000).default(60),
  /** Results whose fused score (before dampening and boosts) is below this are dropped; structurally reached ones are kept. @default 0.1 */
  minScore: z.number().min(0).max(1).default(0.1),
  /** A memory found only through a hint scores at most this. @default 0.75 */
  hintOnlyCap: z.number().min(0).max(1).default(0.75),
  /** Recency boost: up to this much for a memory created now, falling linearly to 0 at `recencyDays`. @default 0.1 */
  recencyBoost: z.number().min(0).max(1).default(0.1),
  /** @default 365 */
  recencyDays: z.number().positive().max(36_500).default(365),
  /** Post-fusion dampening; each stage can be turned off. */
  dampening: z
    .strictObject({
      /** Gravity: high-cosine results sharing no query term are multiplied by `gravityFactor`. @default true */
      gravity: z.boolean().default(true),
      /** @default 0.5 */
      gravityFactor: z.number().min(0).max(1).default(0.5),
      /** Cosine at or above which gravity applies. @default 0.6 */
      gravityCosine: z.number().min(0).max(1).default(0.6),
      /** Hub: results whose entities are all at or above the P90 degree are multiplied by `hubFactor`. @default true */
      hub: z.boolean().default(true),
      /** @default 0.7 */
      hubFactor: z.number().min(0).max(1).default(0.7),
      /** @default 0.9 */
      hubPercentile: z.number().min(0).max(1).default(0.9),
      /**
       * Resolution: constraints, decisions and dated memories are multiplied by `resolutionFactor`.
       * Off by default: it did not help on the test splits (LoCoMo and SciFact lexical unchanged within
       * noise, SciFact hybrid lower with it) and cost MRR on a held-out conversational set, where
       * dated turns crowded the top. @default false
       */
      resolution: z.boolean().default(false),
      /** @default 1.2 */
      resolutionFactor: z.number().min(1).max(3).default(1.2),
      /** Claim currentness: a memory whose knowledge-graph claims were all superseded is multiplied by `currentnessFactor`. @default true */
      currentness: z.boolean().default(true),
      /** @default 0.8 */
      currentnessFactor: z.number().min(0).max(1).default(0.8),
    })
    .prefault({}),
  /**
   * Refinements of the lexical channel's BM25 before it is normalized (issue 12, item 6), each
   * measured on the dev splits (bench/README.md; RM3 feedback and proximity boosts were tried and
   * lost).
   */
  lexical: z
    .strictObject({
      /**
       * Temporal questions ("when …", "what year …", "how long ago …"): BM25 of memories that
       * mention a time (a date, a weekday, "yesterday", "last week" …) × this. 1 turns it off. 1.5
       * was chosen on the LoCoMo dev split (temporal questions R@10 0.806 → 0.845; 2 gave 0.857,
       * within noise, and a larger step lets dated memories crowd the top on other sets).
       * @default 1.5
       */
      temporal: z.number().min(1).max(4).default(1.5),
    })
    .prefault({}),
  /**
   * Long memories scored by their best passage (issue 12, item 1): the `maxCandidates` longest-
   * evidence candidates longer than 1.5 × `chars` are cut into passages of about `chars` at sentence
   * ends, embedded at query time, and scored by the best of their stored cosine and their passages'.
   * 0 turns it off (each candidate costs an embedding call's share at query time).
   */
  passages: z
    .strictObject({
      /** @default 0 */
      maxCandidates: z.number().int().min(0).max(200).default(0),
      /** @default 400 */
      chars: positiveInt(100_000).default(400),
    })
    .prefault({}),
  /**
   * Neighbouring-turn context: a short memory's lexical evidence is informed by the memories written
   * just before and after it with the same `source.type` (memories without a source have no
   * neighbours) and created within `gapMinutes`, so the reply to a matching turn can surface: lexical' = lexical + weight · best neighbour's lexical, then
   * normalized again by the best. Neighbours of the top `seeds` lexical hits are read. Both the
   * memory and its neighbour must be at most `maxChars` long (turns, not documents). 0 turns it off.
   * 0.5 was chosen on the LoCoMo dev split (lexical turn R@10 0.615 → 0.687; 0.25: 0.663, 0.6:
   * 0.695 with a lower MRR, 1: 0.675); SciFact is unchanged (abstracts are longer than `maxChars`).
   */
  neighbours: z
    .strictObject({
      /** @default 0.5 */
      weight: z.number().min(0).max(4).default(0.5),
      /** @default 20 */
      seeds: positiveInt(200).default(20),
      /** @default 60 */
      gapMinutes: z.number().min(0).max(525_600).default(60),
      /** @default 1000 */
      maxChars: positiveInt(1_000_000).default(1000),
    })
    .prefault({}),
  /** Transcript excerpts joined by `expand: true`. */
  expand: z
    .strictObject({
      /** Sessions expanded per recall. @default 3 */
      maxSessions: positiveInt(50).default(3),
      /** Characters of excerpt per session. @default 1500 */
      excerptChars: positiveInt(100_000).default(1500),
    })
    .prefault({}),
});

/** Knowledge-graph traversal in recall. */
const traversalSchema = z.strictObject({
  /** Resolve focal entities from the query and walk aspects, claims and links. When off, a one-hop graph boost applies. @default true */
  enabled: z.boolean().default(true),
  /** Dependency hops from the focal entities. @default 1 */
  maxHops: z.number().int().min(0).max(5).default(1),
  /** Links followed per entity per hop, strongest first. @default 8 */
  maxBranching: positiveInt(100).default(8),
  /** Entities visited in total. @default 32 */
  maxEntities: positiveInt(1000).default(32),
  /** Claims read in total. @default 100 */
  maxClaims: positiveInt(10_000).default(100),
  /** Time budget for the walk; when spent, it stops with what it has. @default 25 */
  timeBudgetMs: positiveInt(10_000).default(25),
  /** Candidate budget of a recall, of which at least `flatReserve` is kept for lexical/semantic candidates. @default 100 */
  candidateBudget: positiveInt(10_000).default(100),
  /** @default 0.4 */
  flatReserve: z.number().min(0).max(1).default(0.4),
  /** A traversal-only result with no anchor in the query's text or meaning scores at most this. @default 0.35 */
  unanchoredCap: z.number().min(0).max(1).default(0.35),
  /** Legacy graph boost (traversal off): added to results mentioning a focal entity. @default 0.1 */
  graphBoost: z.number().min(0).max(1).default(0.1),
});

/** Prospective hints: questions a memory may answer, generated by the LLM and searched at recall. */
const hintsSchema = z.strictObject({
  /** Generate hints for new memories when an LLM is configured. @default true */
  enabled: z.boolean().default(true),
  /** Hints kept per memory. @default 5 */
  maxPerMemory: positiveInt(20).default(5),
  /** Longest hint kept, in characters. @default 300 */
  maxChars: positiveInt(2000).default(300),
  /** Output tokens asked of the model. @default 400 */
  maxOutputTokens: positiveInt(8192).default(400),
});

/**
 * The entity registry (seed 003): broad categories over everything an agent holds. Not the
 * knowledge graph's entities (Dreaming) and not host-object links (`linkedEntities`).
 */
const registrySchema = z.strictObject({
  /**
   * When an LLM is configured, a background job links each new memory and note, each ingested
   * document and each completed transcript to 1–`maxPerObject` categories (existing ones
   * preferred). Best effort: a failure never fails the write. @default true
   */
  autoLinkOnCreate: z.boolean().default(true),
  /** Categories one object may be linked to (by auto-linking; `link` refuses more too). @default 3 */
  maxPerObject: positiveInt(10).default(3),
  /** Output tokens asked of the model per classification. @default 300 */
  maxOutputTokens: positiveInt(8192).default(300),
});

/** Dreaming: audited consolidation of evidence into the knowledge graph, and its apply seam's policies. */
const dreamingSchema = z.strictObject({
  /** Run Dreaming passes on the engine's schedule when an LLM is configured. @default false */
  enabled: z.boolean().default(false),
  /** How often the schedule checks which agents need a pass. @default 300000 (5 min) */
  checkIntervalMs: positiveInt(24 * 3600_000).default(300_000),
  /** Validate operations and record them as proposals; write nothing. @default false */
  shadowMode: z.boolean().default(false),
  /** No passes, and the apply seam refuses every operation. @default false */
  mutationsFrozen: z.boolean().default(false),
  /** Allow superseding and archiving memories (never pinned ones without `force`). @default false */
  allowUpdateDelete: z.boolean().default(false),
  /** Operations with a stated confidence below this are rejected. @default 0.7 */
  minConfidenceForWrite: z.number().min(0).max(1).default(0.7),
  /** Operations applied per write transaction (each in its own savepoint). @default 10 */
  operationsPerTransaction: positiveInt(100).default(10),
  /** Active aspects one entity may have. @default 20 */
  maxAspectsPerEntity: positiveInt(10_000).default(20),
  /** Active claims one aspect may have. @default 50 */
  maxClaimsPerAspect: positiveInt(10_000).default(50),
  /** A backlog of at least this many evidence tokens triggers a pass. @default 100000 */
  triggerTokens: positiveInt(100_000_000).default(100_000),
  /** Any backlog triggers a pass once the last one is this old. @default 21600000 (6 h) */
  minIntervalMs: positiveInt(30 * 86_400_000).default(6 * 3600_000),
  /** Consecutive failures that halt an agent's passes. @default 5 */
  haltAfterFailures: positiveInt(100).default(5),
  /** How long a halt lasts from the last failure. @default 86400000 (24 h) */
  haltMs: positiveInt(30 * 86_400_000).default(86_400_000),
  /** Backoff after failures: backoffBaseMs · 2^min(failures, 6). @default 300000 (5 min) */
  backoffBaseMs: positiveInt(86_400_000).default(300_000),
  /** Evidence a pass may read, in estimated tokens (characters / 4). @default 128000 */
  inputBudgetTokens: positiveInt(10_000_000).default(128_000),
  /** Longest evidence fragment, cut at a paragraph or sentence boundary. @default 2000 */
  fragmentChars: z.number().int().min(200).max(100_000).default(2000),
  /** Fragments per `next_evidence` page. @default 8 */
  evidencePageSize: positiveInt(1000).default(8),
  /** A pass still running after this long is stopped and recorded as failed. @default 1200000 (20 min) */
  passDeadlineMs: positiveInt(24 * 3600_000).default(20 * 60_000),
  /** Tool calls one pass may make. @default 200 */
  maxToolCalls: positiveInt(10_000).default(200),
  /** Model turns one pass may take. @default 100 */
  maxTurns: positiveInt(10_000).default(100),
  /** Output tokens asked per model turn. @default 4000 */
  maxOutputTokens: positiveInt(100_000).default(4000),
  /** Characters of a tool result shown to the model and recorded. @default 16000 */
  maxToolResultChars: positiveInt(1_000_000).default(16_000),
});

/** Local, opt-in recall telemetry. */
const telemetrySchema = z.strictObject({
  /** Record each recall's query, result count, top score and timings (local only; scoped per agent; purgeable). @default false */
  recallQa: z.boolean().default(false),
});

/** Retention of deleted memories. */
const retentionSchema = z.strictObject({
  /** A forgotten memory can be recovered for this many days. @default 30 */
  recoverWindowDays: z.number().positive().max(3650).default(30),
  /**
   * Forgotten and expired memories past the recover window are purged (removed with everything
   * derived from them, a tombstone kept) by a maintenance job queued this often. @default 6
   */
  purgeIntervalHours: z
    .number()
    .positive()
    .max(24 * 365)
    .default(6),
  /**
   * Memories purged per transaction. Each batch is its own short transaction and the job yields to
   * the event loop between batches; 100 kept the longest stall well under 50 ms in `bench:maintenance`.
   * @default 100
   */
  purgeBatchSize: positiveInt(10_000).default(100),
  /** Run the purge at all (off: forgotten memories stay until erased). @default true */
  purgeEnabled: z.boolean().default(true),
  /**
   * Entities nothing points at (no mention, active claim or link) and unchanged for this many days
   * are archived by the `archive` maintenance task (pinned ones never). @default 30
   */
  orphanEntityDays: z.number().positive().max(36_500).default(30),
  /** Cold copies (previous contents of changed memories) are pruned after this many days. @default 180 */
  coldCopyDays: z.number().positive().max(36_500).default(180),
});

/**
 * Reaping (seed 003): stale low-importance memories get `expires_at` (never a delete); the purge
 * removes them after the recover window.
 */
const lifecycleSchema = z.strictObject({
  /** Run reaping. @default true */
  reapEnabled: z.boolean().default(true),
  /** How often the reaping job is queued. @default 24 */
  reapIntervalHours: z
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  /** A memory not accessed (nor created) for this many days is stale. @default 90 */
  reapAfterDays: z.number().positive().max(36_500).default(90),
  /**
   * Importance at or below which a stale memory is reaped. The seed's cut is ≤ 2 on a 1–5 scale;
   * our importance is 0..1, read as score/5, so 2/5 = 0.4. @default 0.4
   */
  reapMaxImportance: z.number().min(0).max(1).default(0.4),
  /** Rows examined per reaping transaction (a bounded seq range, whatever matches in it). @default 2000 */
  reapScanRows: positiveInt(100_000).default(2000),
});

/**
 * The memory steward (seed 003): task recall over host-object links, consolidation of a finished
 * task into durable memories, and mini-reflection into working notes.
 */
const stewardSchema = z.strictObject({
  /** Most host objects a task resolves to (after dedup, in confidence order). @default 10 */
  maxEntities: positiveInt(64).default(10),
  /** One resolver's time limit; a slower one is logged and skipped. @default 250 */
  resolverTimeoutMs: positiveInt(60_000).default(250),
  /** Time for the whole resolver pipeline; resolvers not started by then are skipped. @default 1000 */
  resolveBudgetMs: positiveInt(600_000).default(1000),
  /** The embedding-fallback resolvers run only when fewer host objects than this were found. @default 2 */
  fallbackBelow: z.number().int().min(0).max(64).default(2),
  /** Entity-linked memories (and notes, each) in the `linked` tier of task recall. @default 10 */
  linkedLimit: positiveInt(100).default(10),
  /** Text and meaning matches in the `related` tier of task recall. @default 5 */
  relatedLimit: z.number().int().min(0).max(50).default(5),
  /**
   * The `related` tier ranks active notes with memories (recall's `include: ['memories', 'notes']`);
   * linked notes are read either way. @default true
   */
  relatedNotes: z.boolean().default(true),
  /** Durable memories one consolidation may store; further proposals are rejected. @default 5 */
  maxMemoriesPerTask: positiveInt(50).default(5),
  /** Proposals with fewer words than this are rejected as low-signal. @default 5 */
  minWords: positiveInt(100).default(5),
  /** Proposals the model rates below this confidence (0..1) are rejected. @default 0.6 */
  minConfidence: z.number().min(0).max(1).default(0.6),
  /** Characters of the task (text, summary, transcript) put in a prompt. @default 12000 */
  maxTaskChars: positiveInt(200_000).default(12_000),
  /** The model's output cap per steward call. @default 1500 */
  maxOutputTokens: positiveInt(32_000).default(1500),
  /** Capture decisions, commitments and next steps as notes after high-signal tasks. @default true */
  miniReflectionEnabled: z.boolean().default(true),
  /** Tool names that make a task high-signal. @default the seed's list */
  highSignalTools: z
    .array(z.string().min(1).max(128))
    .max(256)
    .default([
      'calendar_create_event',
      'calendar_update_event',
      'calendar_delete_event',
      'email_send',
      'contact_create',
      'project_create',
    ]),
  /** Note creations, updates and resolutions one mini-reflection may make. @default 5 */
  maxNotesPerTask: positiveInt(50).default(5),
});

/** Working notes (seed 003): the agent's shorter-lived second tier. */
const notesSchema = z.strictObject({
  /**
   * Active notes not updated for this many days are archived by the `reap` maintenance task (its
   * schedule is `lifecycle.reapIntervalHours`; off with `lifecycle.reapEnabled: false`). @default 60
   */
  reapAfterDays: z.number().positive().max(36_500).default(60),
});

/** SQLite connection settings. */
const storeSchema = z.strictObject({
  /** How long a write waits for another connection's lock before failing. @default 5000 */
  busyTimeoutMs: z.number().int().min(0).max(600_000).default(5000),
  /**
   * Bytes of the file mapped into memory (file databases); speeds up vector and FTS reads: an ivf
   * search of 100k vectors took a third less CPU mapped whole than through 256 MiB. SQLite caps it
   * at its build's maximum (0x7fff0000 in better-sqlite3's). @default 2147418112
   */
  mmapSizeBytes: z.number().int().min(0).default(0x7fff0000),
  /**
   * Run WAL checkpoints on a worker thread (file databases) so their fsync never lands inside a
   * commit on the host's event loop. @default true
   */
  backgroundCheckpoint: z.boolean().default(true),
  /** Load sqlite-vec: `auto` loads it when installed and reports its absence; `off` never loads it. @default 'auto' */
  vectorExtension: z.enum(['auto', 'off']).default('auto'),
});

/** The vector index behind the semantic channel (with sqlite-vec) and the fill-in of missing vectors. */
const vectorsSchema = z.strictObject({
  /**
   * An agent's vectors are searched exactly (every vector compared, `vectorCompleteness: "exact"`)
   * up to this many. A larger agent's partition is rebuilt in the background as ivf lists (k-means
   * centroids; the nearest lists are probed, `"approximate"` with a measured recall).
   * @default 20000
   */
  exactMaxVectors: positiveInt(100_000_000).default(20_000),
  /**
   * Neighbour recall@10 an ivf partition aims for: its build picks the fewest probed lists whose
   * recall on sample queries reaches this, and the count is raised or lowered once real queries
   * have been searched again exactly in the background (audits): to the fewest whose audited
   * recall, less a margin for a set of 100 questions the audits never saw (per-question recall
   * varies widely), reaches this. @default 0.96
   */
  targetRecall: z.number().min(0.5).max(1).default(0.96),
  /** Fewest lists an ivf search probes, as a share of the partition's lists. @default 0.05 */
  minProbeShare: z.number().min(0).max(1).default(0.05),
  /**
   * Memory (bytes, per engine) for the in-memory scan cache of large ivf partitions (50,000 vectors
   * or more): an int8 copy of the partition's listed vectors, filled in the background after its
   * first search, then scanned by a WebAssembly SIMD kernel instead of vec0 and rescored exactly
   * (about 400 bytes per 384-d vector: 1M vectors take ~400 MB). Least recently used partitions
   * leave first; a partition that does not fit is searched by vec0. 0 turns the cache off.
   * @default 536870912 (512 MiB)
   */
  scanCacheBytes: z
    .number()
    .int()
    .min(0)
    .max(2 ** 40)
    .default(512 * 1024 * 1024),
  /**
   * How often the started engine checks for index upkeep (fills, rebuilds, drains) and for memories
   * without a vector of the current embedder, and queues the background jobs that do it.
   * @default 10000
   */
  upkeepIntervalMs: positiveInt(24 * 3600_000).default(10_000),
  /** Memories embedded per call by the fill-in job (outside any transaction). @default 64 */
  fillBatchSize: positiveInt(4096).default(64),
  /** Failed embedding attempts after which the fill-in job leaves a memory's content alone. @default 3 */
  fillMaxAttempts: positiveInt(100).default(3),
  /**
   * What happens when the engine opens with an embedder whose model or dimensions differ from the
   * last one (the change is recorded either way). `background`: the fill-in job re-embeds every
   * live memory in batches; `manual`: only `engine.maintenance.reembed()` starts it. Until a memory
   * is re-embedded the semantic channel cannot find it (recall says `vectorCompleteness: "partial"`
   * with counts): a query embedded by the new model cannot be compared with the old model's vectors.
   * @default 'background'
   */
  reembed: z.enum(['background', 'manual']).default('background'),
  /**
   * The embedder this file's vectors must come from. Opening the engine with another model (or
   * other dimensions, when given) fails with `INVALID_CONFIG` before anything is written, so a
   * deployment that changed its embedder by accident keeps its vectors and its semantic recall.
   * Unset: any embedder is accepted and a change starts the embedding migration. @default undefined
   */
  pinnedEmbedder: z.strictObject({ model: z.string().min(1), dimensions: positiveInt(65_536).optional() }).optional(),
});

/** Session transcripts. */
const transcriptsSchema = z.strictObject({
  /** Largest kept turn, in UTF-8 bytes. @default 4194304 (4 MiB) */
  maxTurnBytes: positiveInt(64 * 1024 * 1024).default(4 * 1024 * 1024),
  /** Most turns in one `append` call. @default 1000 */
  maxTurnsPerAppend: positiveInt(100_000).default(1000),
  /** An open session with no append for this long is completed by the sweep. @default 86400000 (24 h) */
  idleCompleteMs: positiveInt(365 * 86_400_000).default(86_400_000),
  /** How often the idle-session sweep runs once the engine is started. @default 300000 (5 min) */
  sweepIntervalMs: positiveInt(24 * 3600_000).default(300_000),
  /** Sessions completed per sweep transaction. @default 50 */
  sweepBatchSize: positiveInt(10_000).default(50),
});

/** Document ingest. */
const documentsSchema = z.strictObject({
  /** Target chunk length in characters (cuts fall on paragraph, sentence or word boundaries). @default 2000 */
  chunkSize: z.number().int().min(100).max(100_000).default(2000),
  /** Characters repeated between neighbouring chunks. @default 200 */
  chunkOverlap: z.number().int().min(0).max(50_000).default(200),
  /** Largest document, fetched or given, in bytes. @default 10485760 (10 MiB) */
  maxBytes: positiveInt(1024 * 1024 * 1024).default(10 * 1024 * 1024),
  /** Whole URL fetch, redirects included. @default 30000 */
  fetchTimeoutMs: positiveInt(600_000).default(30_000),
  /** One extraction (PDF, DOCX, large HTML) in its worker thread; past it the worker is stopped. @default 60000 */
  extractTimeoutMs: positiveInt(600_000).default(60_000),
  /** Most a DOCX archive may unpack to, by its own directory (zip bombs are refused). @default 104857600 (100 MiB) */
  maxUnpackedBytes: positiveInt(4 * 1024 * 1024 * 1024).default(100 * 1024 * 1024),
  /** Redirects followed, each re-checked. @default 5 */
  maxRedirects: z.number().int().min(0).max(20).default(5),
  /**
   * Addresses (`127.0.0.1`), CIDRs (`10.0.0.0/8`) or host names a fetch may reach despite the
   * private-address guard. Empty by default: loopback, private and link-local targets are refused.
   * @default []
   */
  allowList: z.array(z.string().min(1).max(256)).max(1000).default([]),
  /** Chunks per embedder call. @default 64 */
  embedBatchSize: positiveInt(4096).default(64),
  /** Chunk memories written per transaction. @default 50 */
  indexBatchSize: positiveInt(5000).default(50),
  /**
   * Chunk text (UTF-8 bytes) prepared, embedded and indexed as one window before the next window is
   * prepared: a large document holds one window of normalized copies and vectors in memory, not all
   * of them. @default 1048576 (1 MiB)
   */
  windowBytes: positiveInt(1024 * 1024 * 1024).default(1024 * 1024),
  /** Importance of chunk memories. @default 0.3 */
  chunkImportance: z.number().min(0).max(1).default(0.3),
});

/** Transcript import (signet-export v1 JSONL). */
const importsSchema = z.strictObject({
  /** Records written per transaction. @default 25 */
  batchRecords: positiveInt(10_000).default(25),
  /** Record bytes per transaction. @default 8388608 (8 MiB) */
  batchBytes: positiveInt(1024 * 1024 * 1024).default(8 * 1024 * 1024),
  /** Larger lines are rejected as `oversized_record` without being read whole. @default 16777216 (16 MiB) */
  maxRecordBytes: positiveInt(1024 * 1024 * 1024).default(16 * 1024 * 1024),
  /** Larger messages reject their record as `oversized_message`. @default 4194304 (4 MiB) */
  maxMessageBytes: positiveInt(1024 * 1024 * 1024).default(4 * 1024 * 1024),
  /** More messages reject the record as `too_many_messages`. @default 50000 */
  maxMessages: positiveInt(10_000_000).default(50_000),
  /** Lines recorded per inventory transaction. @default 500 */
  inventoryBatchLines: positiveInt(100_000).default(500),
  /**
   * Where a streamed export is written before it is imported (imports resume by byte offset, so
   * they need a file). Required for `imports.start({ stream })`; the engine picks no directory itself.
   * @default undefined
   */
  spoolDirectory: z.string().min(1).max(4096).refine(isAbsolute, 'must be an absolute path').optional(),
  /**
   * Directories `imports.start({ file })` may read from (the file's real path, symlinks resolved,
   * must lie inside one). The spool directory is always allowed. Empty by default: only spooled
   * streams can be imported until the host lists where its exports live.
   * @default []
   */
  allowedDirectories: z
    .array(z.string().min(1).max(4096).refine(isAbsolute, 'must be an absolute path'))
    .max(100)
    .default([]),
});

/** The durable job queue and its workers. */
const queueSchema = z.strictObject({
  /** Attempts before a job is dead-lettered. @default 3 */
  maxAttempts: positiveInt(100).default(3),
  /** How long a lease lasts without a heartbeat. @default 60000 */
  leaseMs: positiveInt(24 * 3600_000).default(60_000),
  /** How often a running job's lease is renewed; must be below `leaseMs`. @default 20000 */
  heartbeatMs: positiveInt(24 * 3600_000).default(20_000),
  /** How long a handler may run before it is aborted and the attempt fails. @default 300000 */
  jobDeadlineMs: positiveInt(24 * 3600_000).default(300_000),
  /** Idle workers poll this often. @default 1000 */
  pollIntervalMs: positiveInt(3600_000).default(1000),
  /** The stale-lease reaper runs this often. @default 60000 */
  reaperIntervalMs: positiveInt(24 * 3600_000).default(60_000),
  /** Retry delay after a failed attempt: min(retryBaseMs · 2^(attempt−1), retryMaxMs). @default 5000 */
  retryBaseMs: z
    .number()
    .int()
    .min(0)
    .max(24 * 3600_000)
    .default(5000),
  /** Cap on the retry delay. @default 300000 */
  retryMaxMs: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600_000)
    .default(300_000),
  /** `close()` waits this long for in-flight jobs before releasing them. @default 10000 */
  closeDeadlineMs: z.number().int().min(0).max(600_000).default(10_000),
  /** Largest job payload, in UTF-8 bytes of JSON. @default 1048576 */
  maxPayloadBytes: positiveInt(64 * 1024 * 1024).default(1024 * 1024),
  /** Completed and cancelled jobs are pruned after this many days. @default 14 */
  completedRetentionDays: z.number().positive().max(3650).default(14),
  /** Dead jobs are pruned after this many days. @default 30 */
  deadRetentionDays: z.number().positive().max(3650).default(30),
  /** The job archive (terminal jobs kept as JSON after pruning) is pruned after this many days. @default 90 */
  archiveRetentionDays: z.number().positive().max(36_500).default(90),
  /** Rows archived and deleted per prune transaction. @default 500 */
  pruneBatchSize: positiveInt(10_000).default(500),
  /** Document ingests in flight at once. @default 2 */
  documentIngestConcurrency: positiveInt(64).default(2),
  /** LLM calls in flight at once, shared by every worker that calls the LLM (ceiling 16). @default 2 */
  llmConcurrency: positiveInt(16).default(2),
});

/** The engine's configuration. Every field is optional on input; defaults are documented per field. */
export const memoryConfigSchema = z
  .strictObject({
    limits: limitsSchema.prefault({}),
    remember: rememberSchema.prefault({}),
    recall: recallSchema.prefault({}),
    traversal: traversalSchema.prefault({}),
    hints: hintsSchema.prefault({}),
    telemetry: telemetrySchema.prefault({}),
    dreaming: dreamingSchema.prefault({}),
    registry: registrySchema.prefault({}),
    retention: retentionSchema.prefault({}),
    lifecycle: lifecycleSchema.prefault({}),
    steward: stewardSchema.prefault({}),
    notes: notesSchema.prefault({}),
    store: storeSchema.prefault({}),
    vectors: vectorsSchema.prefault({}),
    transcripts: transcriptsSchema.prefault({}),
    documents: documentsSchema.prefault({}),
    imports: importsSchema.prefault({}),
    queue: queueSchema.prefault({}).refine((q) => q.heartbeatMs < q.leaseMs, {
      message: 'queue.heartbeatMs must be below queue.leaseMs',
      path: ['heartbeatMs'],
    }),
  })
  .refine((c) => c.documents.chunkOverlap < c.documents.chunkSize, {
    message: 'documents.chunkOverlap must be below documents.chunkSize',
    path: ['documents', 'chunkOverlap'],
  });

/** A partial configuration, as hosts pass it. */
export type MemoryConfigInput = z.input<typeof memoryConfigSchema>;
/** The resolved configuration: every default filled in, frozen. */
export type MemoryConfig = z.output<typeof memoryConfigSchema>;

const EXTRACTION_RETIRED =
  'per-memory LLM extraction was retired: Dreaming consolidates evidence into the knowledge graph (configured under `dreaming`)';

/** Settings of the older pipeline that are rejected with the name of what replaced them. */
const RETIRED_SETTINGS: ReadonlyArray<readonly [path: string, replacement: string]> = [
  ['extraction', EXTRACTION_RETIRED],
  ['extractionProvider', EXTRACTION_RETIRED],
  ['extractionModel', EXTRACTION_RETIRED],
  ['pipeline.extraction', EXTRACTION_RETIRED],
  ['pipeline.extractionProvider', EXTRACTION_RETIRED],
  ['pipeline.extractionModel', EXTRACTION_RETIRED],
  ['pipeline.decision', 'the per-fact decision stage was retired: Dreaming writes through the audited apply seam'],
  ['pipeline.minFactConfidenceForWrite', 'use `dreaming.minConfidenceForWrite`'],
  ['pipeline.shadowMode', 'use `dreaming.shadowMode`'],
  ['pipeline.mutationsFrozen', 'use `dreaming.mutationsFrozen`'],
  ['autonomous.allowUpdateDelete', 'use `dreaming.allowUpdateDelete`'],
];

function hasPath(value: unknown, path: string): boolean {
  let node: unknown = value;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Validates a partial configuration and fills in defaults. Unknown keys and retired settings are
 * rejected with `INVALID_CONFIG`; a retired setting's message names what replaced it.
 *
 * @example
 * ```ts
 * const config = resolveConfig({ recall: { defaultLimit: 5 } });
 * config.recall.maxLimit; // 50
 * ```
 */
export function resolveConfig(input: unknown = {}): MemoryConfig {
  for (const [path, replacement] of RETIRED_SETTINGS) {
    if (hasPath(input, path)) {
      throw new MemoryError('INVALID_CONFIG', `config.${path} is no longer supported: ${replacement}`, {
        details: { setting: path },
      });
    }
  }
  const parsed = memoryConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    throw new MemoryError('INVALID_CONFIG', `invalid configuration:\n${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) },
    });
  }
  return deepFreeze(parsed.data);
}

/** The defaults, resolved once; handy for documentation and tests. */
export const defaultConfig: MemoryConfig = resolveConfig({});
