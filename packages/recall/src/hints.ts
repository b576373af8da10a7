import { type LlmProvider, type MemoryConfig, stripThinkBlocks } from '@memory/core';
import { findMemoryProgram, insertHintsProgram, memoryScopeLockKeys, type PortableStore } from '@memory/store';

/** The job type of the hints worker; one job per new memory. */
export const PROSPECTIVE_INDEX_JOB = 'prospective_index';

/** Versioned with the parser: a change to either is a deliberate, tested change. */
export const HINTS_PROMPT_VERSION = 1;

export function buildHintsPrompt(content: string, max: number): string {
  return [
    `Here is a memory an assistant has stored:`,
    '',
    content,
    '',
    `Write up to ${max} different questions a user might ask later that this memory answers.`,
    'Make them diverse: one direct, one about when, one about who or what it relates to, one indirect.',
    'Write one question per line, with no numbering, no quotes and no other text.',
  ].join('\n');
}

// Lines that are the model talking about its answer, not a question.
const RESIDUE =
  /^(?:here (?:are|is)\b|sure\b|certainly\b|okay\b|ok\b|questions?:|answer:|note:|i (?:hope|can)\b|let me\b|these questions\b)/i;
const PREFIX = /^\s*(?:[-*•>]+|\(?\d{1,2}[.):]|\(?[a-z][.)]|q\d*[:.)]|question\s*\d*[:.)])\s*/i;

/**
 * Turns model output into hints: strips `<think>` blocks, code fences, numbering, bullets and
 * quotes; drops prompt residue, echoes of the memory, too-short or too-long lines and duplicates;
 * keeps at most `max`. Never throws.
 */
export function parseHints(
  output: string,
  options: { max: number; maxChars: number; memoryContent?: string },
): string[] {
  const text = stripThinkBlocks(output).replace(/```[a-z]*\n?/gi, '');
  const seen = new Set<string>();
  const echo = options.memoryContent?.trim().toLowerCase();
  const hints: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    for (let i = 0; i < 3 && PREFIX.test(line); i++) line = line.replace(PREFIX, '').trim();
    line = line.replace(/^["'“”‘’`*_]+|["'“”‘’`*_]+$/g, '').trim();
    if (line.length < 8 || line.length > options.maxChars) continue;
    if (RESIDUE.test(line) || /:$/.test(line)) continue;
    if ((line.match(/[\p{L}]+/gu) ?? []).length < 3) continue;
    const key = line.toLowerCase().replace(/\s+/g, ' ');
    if (key === echo || seen.has(key)) continue;
    seen.add(key);
    hints.push(line);
    if (hints.length >= options.max) break;
  }
  return hints;
}

export interface HintsWorkerDeps {
  /** SQLite or PostgreSQL. */
  readonly store: PortableStore;
  /** Already wrapped by the store's transaction guard. */
  readonly llm: LlmProvider;
  readonly config: MemoryConfig;
}

/**
 * The `prospective_index` handler: prepare (read the memory, ask the model: no transaction open)
 * → apply (one short transaction storing the parsed hints). A memory that is gone or changed
 * since the job was queued is skipped. Returns what it did, which the queue stores as the result.
 */
export function createHintsHandler(deps: HintsWorkerDeps) {
  const { store, llm, config } = deps;
  return async (
    payload: { memoryId: string; agentId: string },
    signal: AbortSignal,
  ): Promise<{ hints: number; skipped?: string }> => {
    const memory = await store.db.read(() => findMemoryProgram(payload.agentId, payload.memoryId));
    if (!memory) return { hints: 0, skipped: 'memory not found' };
    const max = config.hints.maxPerMemory;
    const answer = await llm.generate(
      {
        messages: [{ role: 'user', content: buildHintsPrompt(memory.content, max) }],
        maxOutputTokens: config.hints.maxOutputTokens,
        temperature: 0.7,
      },
      { signal },
    );
    const hints = parseHints(answer.text, { max, maxChars: config.hints.maxChars, memoryContent: memory.content });
    if (hints.length === 0) return { hints: 0, skipped: 'no usable hints in the model output' };
    const now = store.clock.now();
    return store.db.write(
      function* () {
        const current = yield* findMemoryProgram(payload.agentId, payload.memoryId);
        if (!current || current.content_hash !== memory.content_hash)
          return { hints: 0, skipped: 'memory changed' } as { hints: number; skipped?: string };
        return { hints: yield* insertHintsProgram(store.dialect, payload.agentId, payload.memoryId, hints, now) };
      },
      { lockKeys: memoryScopeLockKeys([payload.agentId]) },
    );
  };
}
