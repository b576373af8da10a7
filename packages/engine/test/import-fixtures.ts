// The signet-export fixtures live with the import code in @memory/ingest's tests; the engine's
// import tests use the same ones, plus a generator for large exports.
import { settle } from '@memory/queue/testing';
import { record, writeExport } from '../../ingest/test/contract/import-fixtures.js';

export { mixedExport, record, SMALL_LIMITS, writeExport } from '../../ingest/test/contract/import-fixtures.js';

/**
 * Turns the event loop, running `step` first on each turn (a manual scheduler's advance), until
 * `done` answers true; answers false once `timeoutMs` of real time has passed. An import reads its
 * file with real I/O, which a loaded machine delays by a number of turns that no fixed count bounds
 * (counts of 5,000 turns ran out under load): the bound is wall-clock time.
 */
export async function turnUntil(
  done: () => Promise<boolean>,
  options: { step?: () => Promise<unknown>; timeoutMs?: number } = {},
): Promise<boolean> {
  const deadline = performance.now() + (options.timeoutMs ?? 60_000);
  while (!(await done())) {
    if (performance.now() > deadline) return false;
    await options.step?.();
    await settle(1);
  }
  return true;
}

export function generatedExport(path: string, records: number, messagesPerRecord: number): void {
  const lines: string[] = [];
  for (let n = 0; n < records; n++) {
    const messages = Array.from({ length: messagesPerRecord }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `Turn ${i} of conversation ${n}: we talked about project ${n % 50} and the ${i % 7} open questions.`,
    }));
    lines.push(JSON.stringify({ ...record(n), messages, message_count: messages.length }));
  }
  writeExport(path, lines);
}
