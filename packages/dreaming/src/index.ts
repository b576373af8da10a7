export type { AgentLimits, AgentRun, AgentStop, AgentTool, ToolCallRecord } from './agent.js';
export { runAgent } from './agent.js';
export type { ApplyContext, ApplyResult } from './apply.js';
export { applyDreamingOperations, writtenMemoryIds } from './apply.js';
export { detectAttention, openAttentionCount } from './attention.js';
export type { Citation, CitationCheck } from './citations.js';
export { checkCitations, MAX_QUOTE_CHARS, MIN_QUOTE_CHARS } from './citations.js';
export type { EvidenceKind, EvidenceLookup, SourceRef } from './evidence.js';
export { EVIDENCE_KINDS, lookupEvidence, parseSourceRef } from './evidence.js';
export type { DeliveredSpan, EvidenceFragment, EvidenceWindow } from './evidence-window.js';
export { backlogTokens, fragmentEnd, recordDelivered, selectEvidence } from './evidence-window.js';
export type { HeadWrite, MemoryHead } from './memory-head.js';
export { MEMORY_HEAD_MAX_CHARS, readMemoryHead, renderMemoryHead, writeMemoryHead } from './memory-head.js';
export type { DreamingOperation, OperationName, ParsedOperations } from './operations.js';
export {
  CONTENT_OPERATIONS,
  citationSchema,
  HYGIENE_OPERATIONS,
  MAX_OPERATIONS_PER_REQUEST,
  OPERATION_NAMES,
  operationJsonSchema,
  operationSchema,
  parseOperations,
} from './operations.js';
export type { PassInput, PassResult } from './pass.js';
export { runDreamingPass } from './pass.js';
export { buildRunbook, RUNBOOK_VERSION } from './runbook.js';
export type { PassLimiter } from './schedule.js';
export { createDreamingSchedule } from './schedule.js';
export type { DreamingMode, TriggerDecision, TriggerState } from './triggers.js';
export { chooseMode, decideTrigger, dreamingBackoffMs } from './triggers.js';
export type { OperationDecision, ProposalRoute } from './validate.js';
export { decideOperations } from './validate.js';
export type { WriteOutcome } from './writers.js';
