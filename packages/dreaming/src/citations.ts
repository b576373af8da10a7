import { type Program, runSqliteProgram, type SqlExecutor } from '@memory/store';
import { type CrossScopeReporter, lookupEvidenceProgram, parseSourceRef, type SourceRef } from './evidence.js';

/** One citation as an operation carries it. */
export interface Citation {
  readonly sourceRef: string;
  readonly quote: string;
}

/** Shortest quote accepted: shorter ones match by accident. */
export const MIN_QUOTE_CHARS = 8;
/** Longest quote accepted: citations point at evidence, they do not copy it. */
export const MAX_QUOTE_CHARS = 2000;

export type CitationCheck =
  | { readonly ok: true; readonly refs: readonly SourceRef[] }
  | { readonly ok: false; readonly reason: string };

/** Unicode-normalizes (NFC) and unifies line endings: differences that are encoding, not wording. */
function canonical(text: string): string {
  return text.normalize('NFC').replace(/\r\n?/g, '\n');
}

/**
 * Checks that every citation names evidence in the agent's own scope and quotes it exactly (a
 * verbatim substring, after NFC and line-ending normalization). The first failure is returned as a
 * reason written for the model: what was wrong and how to fix it. Evidence of another scope gets
 * the same reason as evidence that does not exist (`report` hears about it).
 */
export function checkCitations(
  sql: SqlExecutor,
  agentId: string,
  citations: readonly Citation[],
  report?: CrossScopeReporter,
): CitationCheck {
  return runSqliteProgram(sql, checkCitationsProgram(agentId, citations, report));
}

/** {@link checkCitations} as a program (both dialects). */
export function* checkCitationsProgram(
  agentId: string,
  citations: readonly Citation[],
  report?: CrossScopeReporter,
): Program<CitationCheck> {
  if (citations.length === 0)
    return {
      ok: false,
      reason:
        'cite at least one piece of evidence: { sourceRef: "transcript:<sessionKey>" | "memory:<id>" | "document:<id>" | "import:<recordId>", quote }',
    };
  const refs: SourceRef[] = [];
  const texts = new Map<string, string>();
  for (const [i, citation] of citations.entries()) {
    const where = `evidence[${i}]`;
    const ref = parseSourceRef(citation.sourceRef);
    if (!ref || ref.kind === 'attention')
      return {
        ok: false,
        reason: `${where}: "${String(citation.sourceRef).slice(0, 80)}" is not an evidence reference; use transcript:<sessionKey>, memory:<id>, document:<id> or import:<recordId>`,
      };
    const quote = typeof citation.quote === 'string' ? canonical(citation.quote) : '';
    if (quote.trim().length < MIN_QUOTE_CHARS)
      return {
        ok: false,
        reason: `${where}: quote at least ${MIN_QUOTE_CHARS} characters copied verbatim from ${citation.sourceRef}`,
      };
    if (quote.length > MAX_QUOTE_CHARS)
      return {
        ok: false,
        reason: `${where}: quote at most ${MAX_QUOTE_CHARS} characters; cite the sentence that supports the operation`,
      };
    let text = texts.get(citation.sourceRef);
    if (text === undefined) {
      const found = yield* lookupEvidenceProgram(agentId, ref, report);
      if (!found.found) {
        const why = {
          not_found: `${citation.sourceRef} is not evidence of this scope; cite only references you were shown`,
          not_completed: `${citation.sourceRef} is not citable yet (an open transcript, a deleted memory or an unfinished document)`,
          not_evidence: `${citation.sourceRef} is not evidence`,
        }[found.reason];
        return { ok: false, reason: `${where}: ${why}` };
      }
      text = canonical(found.text);
      texts.set(citation.sourceRef, text);
    }
    if (!text.includes(quote)) {
      return {
        ok: false,
        reason: `${where}: the quote is not in ${citation.sourceRef} word for word; copy the exact text instead of paraphrasing`,
      };
    }
    refs.push(ref);
  }
  return { ok: true, refs };
}
