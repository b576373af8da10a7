export { STOP_WORDS } from '@memory/store';
export type { AfterResponseWriter } from './after-response.js';
export { createAfterResponseWriter } from './after-response.js';
export type { VectorCompleteness, VectorSearchReport } from './channels/semantic.js';
export { entityNameCandidates } from './channels/traversal.js';
export type { SessionExcerpt } from './expand.js';
export type { FormatRecallOptions } from './format.js';
export { formatRecall } from './format.js';
export type { HintsWorkerDeps } from './hints.js';
export {
  buildHintsPrompt,
  createHintsHandler,
  HINTS_PROMPT_VERSION,
  PROSPECTIVE_INDEX_JOB,
  parseHints,
} from './hints.js';
export type { LexicalPlan } from './query.js';
export type { Recall, RecallDeps } from './recall.js';
export { createRecall } from './recall.js';
export type { RecallInput, RecallRequest } from './schema.js';
export { createRecallSchema } from './schema.js';
export type { Adjustments, ChannelEvidence, DampeningContext, DampeningSubject, FusionOptions } from './shaping.js';
export { dampen, fuseScore, isDated, LINKED_FLOOR, sharesQueryTerm } from './shaping.js';
export type {
  ChannelScores,
  DrillDown,
  RecallExplanation,
  RecallResponse,
  RecallResult,
  RecallTimings,
} from './types.js';
