export type { ApplyContext, ApplyResult } from './apply.js';
export { applyDreamingOperations, applyDreamingOperationsOn, writtenMemoryIds } from './apply.js';

export { backlogTokens, recordDelivered, selectEvidence } from './evidence-window.js';
export type { RowChange } from './footprint.js';
export type { MemoryHead } from './memory-head.js';
export { readMemoryHead, readMemoryHeadProgram, renderMemoryHead } from './memory-head.js';
export type { DreamingOperation, OperationName } from './operations.js';
export {
  citationSchema,
  MAX_OPERATIONS_PER_REQUEST,
  OPERATION_NAMES,
  operationJsonSchema,
  operationSchema,
} from './operations.js';
export type { PassInput, PassResult } from './pass.js';
export { runDreamingPass } from './pass.js';
export type { RevertAction, RevertConflict, RevertInput, RevertResult, RevertRow } from './revert.js';
export { revertPass, revertPassOn } from './revert.js';
export type { AcceptProposalInput, AcceptResult, RejectProposalInput } from './review.js';
export { acceptProposal, acceptProposalOn, rejectProposal, rejectProposalOn } from './review.js';
export { RUNBOOK_VERSION } from './runbook.js';
export type { PassLimiter } from './schedule.js';
export { createDreamingSchedule } from './schedule.js';
export type { DreamingMode, TriggerDecision } from './triggers.js';
export type { ProposalRoute } from './validate.js';
