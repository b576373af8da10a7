// The signet-export fixtures live with the import code in @memory/ingest's tests; the engine's
// import tests use the same ones, plus a generator for large exports.
import { record, writeExport } from '../../ingest/test/contract/import-fixtures.js';

export { mixedExport, record, SMALL_LIMITS, writeExport } from '../../ingest/test/contract/import-fixtures.js';

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
