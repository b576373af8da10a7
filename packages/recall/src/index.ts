export type { AfterResponseWriter } from './after-response.js';
export { createAfterResponseWriter } from './after-response.js';
export type { VectorCompleteness, VectorCoverage, VectorSearchReport } from './channels/semantic.js';

export type { SessionExcerpt } from './expand.js';
export type { FormatRecallOptions } from './format.js';
export { formatRecall } from './format.js';
export type { HintsWorkerDeps } from './hints.js';
export { createHintsHandler, PROSPECTIVE_INDEX_JOB } from './hints.js';
export type { LexicalPlan } from './query.js';
export type { Recall, RecallDeps } from './recall.js';
export { createRecall } from './recall.js';
export type { RecallInput, RecallRequest } from './schema.js';
export { createRecallSchema } from './schema.js';

export type {
  ChannelScores,
  DrillDown,
  NoteRecallResult,
  RecallDocumentSource,
  RecallExplanation,
  RecallItem,
  RecallKind,
  RecallResponse,
  RecallResult,
  RecallResultsOf,
  RecallTimings,
  RecallWindow,
} from './types.js';
export { WINDOW_EXCLUDED_CAP } from './types.js';
