export { EVIDENCE_KINDS, lookupEvidence, parseSourceRef } from './evidence.js';
export type { EvidenceKind, EvidenceLookup, SourceRef } from './evidence.js';
export { MAX_QUOTE_CHARS, MIN_QUOTE_CHARS, checkCitations } from './citations.js';
export type { Citation, CitationCheck } from './citations.js';
