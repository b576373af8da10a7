import { baseline } from './0001-baseline.js';
import { jobArchive } from './0002-job-archive.js';
import { transcriptTurns } from './0003-transcript-turns.js';
import { imports } from './0004-imports.js';
import { hintsTelemetry } from './0005-hints-telemetry.js';
import { dreamingSeam } from './0006-dreaming-seam.js';
import { dreamingPasses } from './0007-dreaming-passes.js';
import { jobInterruptions } from './0008-job-interruptions.js';
import { documentParts } from './0009-document-parts.js';
import { vectorIndex } from './0010-vector-index.js';
import { lifecycle } from './0011-lifecycle.js';
import { apiTokens } from './0012-api-tokens.js';
import { scopedTextIndex } from './0013-scoped-text-index.js';
import { dreamingReview } from './0014-dreaming-review.js';
import { notes } from './0015-notes.js';
import { entityRegistry } from './0016-entity-registry.js';
import { memoryCounts } from './0017-memory-counts.js';
import { workspaceIndex } from './0018-workspace-index.js';
import { writePath } from './0020-write-path.js';
import { writerOwnRows } from './0021-writer-own-rows.js';
import type { Migration } from './migration.js';

/** Every migration, in order. Append only; never edit or reorder a released entry. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  baseline,
  jobArchive,
  transcriptTurns,
  imports,
  hintsTelemetry,
  dreamingSeam,
  dreamingPasses,
  jobInterruptions,
  documentParts,
  vectorIndex,
  lifecycle,
  apiTokens,
  scopedTextIndex,
  dreamingReview,
  notes,
  entityRegistry,
  memoryCounts,
  workspaceIndex,
  writePath,
  writerOwnRows,
]);
