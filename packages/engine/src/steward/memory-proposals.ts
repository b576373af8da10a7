import { normalizeForHash } from '@memory/core';
import { copiedFromInjection, isInstructionLike, lowSignalReason } from './signal-rules.js';
import type { EntityRef, ResolvedEntity } from './task-context.js';
import { checkLinks } from './task-prompt.js';

/** The durable memory kinds the steward may store (seed 003). */
export const STEWARD_MEMORY_KINDS = [
  'decision',
  'agreement',
  'incident',
  'preference',
  'operating_rule',
  'project_context',
] as const;
export type StewardMemoryKind = (typeof STEWARD_MEMORY_KINDS)[number];

/** Why a proposal was not stored. Stable codes. */
export type RejectionReason =
  | 'invalid'
  | 'kind_not_allowed'
  | 'low_signal'
  | 'transient'
  | 'low_confidence'
  | 'instruction_like'
  | 'duplicate'
  | 'over_limit'
  | 'already_known'
  | 'write_failed';

export interface RejectedProposal {
  /** The proposal's kind and content as the model gave them (cut to 300 characters). */
  readonly kind: string | null;
  readonly content: string;
  readonly reason: RejectionReason;
  readonly detail: string;
  /** With `already_known`: the memory that already says it. */
  readonly memoryId?: string;
}

/** A proposal that passed every rule, ready to be remembered. */
export interface AcceptedProposal {
  readonly kind: StewardMemoryKind;
  readonly content: string;
  readonly importance: number | undefined;
  readonly why: string | undefined;
  readonly linkedEntities: readonly EntityRef[];
  /** Links the model proposed that were not among the task's resolved entities (dropped). */
  readonly rejectedLinks: readonly string[];
}

export interface ProposalRules {
  readonly maxMemories: number;
  readonly minWords: number;
  readonly minConfidence: number;
  readonly maxContentChars: number;
}

const cut = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}…` : s);
const isKind = (k: unknown): k is StewardMemoryKind =>
  typeof k === 'string' && (STEWARD_MEMORY_KINDS as readonly string[]).includes(k);

/** 0..1; a 1–5 scale is read as score/5 (what models often answer); anything else is dropped. */
function unitScore(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  if (value <= 1) return value;
  if (value <= 5) return value / 5;
  return undefined;
}

/**
 * Checks the model's proposals one by one, in order. Rejected, with a reason: anything not an
 * object with string content; kinds outside {@link STEWARD_MEMORY_KINDS}; low-signal and transient
 * content (see `lowSignalReason`); a stated confidence below the floor; content that reads as an
 * instruction or restates an injected instruction from the task; repeats within the answer; and
 * proposals past `maxMemories`. Links are checked separately: unresolved ones are dropped (and
 * reported) while the memory itself may stand.
 */
export function checkProposals(
  raw: readonly unknown[],
  handles: ReadonlyMap<string, ResolvedEntity>,
  injected: readonly string[],
  rules: ProposalRules,
): { accepted: AcceptedProposal[]; rejected: RejectedProposal[] } {
  const accepted: AcceptedProposal[] = [];
  const rejected: RejectedProposal[] = [];
  const seen = new Set<string>();
  for (const item of raw.slice(0, 100)) {
    const p = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    const kindValue = p['kind'] ?? p['type'];
    const kind = typeof kindValue === 'string' ? kindValue.trim().toLowerCase() : null;
    const content = typeof p['content'] === 'string' ? p['content'].replace(/\s+/g, ' ').trim() : '';
    const reject = (reason: RejectionReason, detail: string): void => {
      rejected.push({ kind, content: cut(content), reason, detail });
    };
    if (content.length === 0) {
      reject('invalid', 'a proposal needs non-empty string content');
      continue;
    }
    if (content.length > rules.maxContentChars) {
      reject('invalid', `content is longer than ${rules.maxContentChars} characters`);
      continue;
    }
    if (!isKind(kind)) {
      reject('kind_not_allowed', `kind must be one of: ${STEWARD_MEMORY_KINDS.join(', ')}`);
      continue;
    }
    if (isInstructionLike(content) || copiedFromInjection(content, injected)) {
      reject('instruction_like', 'reads as (or restates) an instruction found in the task, not as a fact');
      continue;
    }
    const signal = lowSignalReason(content, rules.minWords);
    if (signal) {
      reject(
        signal,
        signal === 'transient'
          ? 'describes a passing state, not something durable'
          : 'small talk or too short to be useful later',
      );
      continue;
    }
    const confidence = unitScore(p['confidence']);
    if (confidence !== undefined && confidence < rules.minConfidence) {
      reject('low_confidence', `the model's confidence ${confidence.toFixed(2)} is below ${rules.minConfidence}`);
      continue;
    }
    const norm = normalizeForHash(content);
    if (seen.has(norm)) {
      reject('duplicate', 'the same content was proposed twice');
      continue;
    }
    if (accepted.length >= rules.maxMemories) {
      reject('over_limit', `at most ${rules.maxMemories} memories per task`);
      continue;
    }
    seen.add(norm);
    const links = checkLinks(p['entities'] ?? p['linkedEntities'], handles);
    const why = typeof p['why'] === 'string' ? cut(p['why'].trim(), 500) : undefined;
    accepted.push({
      kind,
      content,
      importance: unitScore(p['importance']),
      why: why && why.length > 0 ? why : undefined,
      linkedEntities: links.accepted,
      rejectedLinks: links.rejected,
    });
  }
  return { accepted, rejected };
}
