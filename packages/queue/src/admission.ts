import { MemoryError } from '@memory/core';
import PQueue from 'p-queue';

/** Shared admission limits. One instance per engine; every worker that calls the LLM shares `llm`. */
export interface Admission {
  /** Document ingests in flight. */
  readonly documentIngest: PQueue;
  /** LLM calls in flight, across Dreaming, hints, steward and registry. */
  readonly llm: PQueue;
}

export const LLM_CONCURRENCY_CEILING = 16;

/** @example `const admission = createAdmission({ documentIngest: 2, llm: 2 });` */
export function createAdmission(limits: { documentIngest: number; llm: number }): Admission {
  if (!Number.isInteger(limits.llm) || limits.llm < 1 || limits.llm > LLM_CONCURRENCY_CEILING) {
    throw new MemoryError('INVALID_CONFIG', `LLM concurrency must be 1..${LLM_CONCURRENCY_CEILING}, got ${limits.llm}`);
  }
  if (!Number.isInteger(limits.documentIngest) || limits.documentIngest < 1) {
    throw new MemoryError(
      'INVALID_CONFIG',
      `document ingest concurrency must be a positive integer, got ${limits.documentIngest}`,
    );
  }
  return {
    documentIngest: new PQueue({ concurrency: limits.documentIngest }),
    llm: new PQueue({ concurrency: limits.llm }),
  };
}
