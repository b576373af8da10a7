export { createRecallSchema, lexicalScore, recallLexical } from './recall.js';
export type { ChannelScores, RecallInput, RecallResponse, RecallResult } from './recall.js';
export { matchExpressions, planLexicalQuery } from './query.js';
export type { LexicalPlan } from './query.js';
export { STOP_WORDS } from '@memory/store';
