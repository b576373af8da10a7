import type { DreamingMode } from './triggers.js';

/** Versioned with the tools: a change to the rules is a deliberate, reviewed change. */
export const RUNBOOK_VERSION = 1;

const RULES = [
  'You maintain the long-term knowledge graph of one agent from its evidence (conversations, memories, documents).',
  'Write only through apply_operations. Every content operation cites evidence: { sourceRef, quote } where quote is copied word for word from a fragment you were shown. Paraphrases are rejected.',
  'Record only settled facts, one fact per claim. Say what a named thing is when you create it.',
  'Resolve relative dates ("yesterday", "next week") against the time the evidence was captured, and give claims validFrom when the evidence says when they became true.',
  'When a fact changes, supersede the old claim instead of adding a new one alongside it.',
  'Attach claims to existing entities and aspects first (search_entities, get_entity); create new ones only when nothing fits.',
  'Archive or merge only with an open attention record about the target (list_attention), or after flagging it in the same batch.',
  'Rejected operations come back with a reason: fix them and try again, or drop them. validate_operations checks a batch without writing.',
  'In content passes, keep MEMORY.md (read_memory_head, write_memory_head) to the few things that matter most, each entry quoted from evidence.',
  'Keep notes for later passes with write_runbook; exclude sources that hold nothing worth keeping with exclude_evidence.',
  'When you are done, reply in plain text with a one-paragraph summary of what you changed.',
];

const FOCUS: Record<DreamingMode, string> = {
  incremental: 'Read the new evidence and consolidate it; handle open attention records.',
  'incremental-content': 'Focus on content: read the new evidence page by page and consolidate what is settled.',
  'incremental-hygiene':
    'Focus on hygiene: work through the open attention records (duplicates, empty entities, over-full aspects, contested or stale claims); merge, archive, supersede or decline them.',
  compact:
    'Compact the graph: merge duplicates, archive what nothing supports, and supersede claims that newer evidence replaced.',
};

export function buildRunbook(
  mode: DreamingMode,
  overview: { fragments: number; tokens: number; attention: number },
): { system: string; user: string } {
  return {
    system: RULES.join('\n'),
    user: [
      `Mode: ${mode}. ${FOCUS[mode]}`,
      `New evidence: ${overview.fragments} fragments (about ${overview.tokens} tokens); read it with next_evidence until it says there is no more.`,
      `Open attention records: ${overview.attention}.`,
    ].join('\n'),
  };
}
