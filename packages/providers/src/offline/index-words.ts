import { createTimeSlicer } from '@memory/core';

/**
 * The word index of a "\n"-joined vocabulary, as `indexWords(wordsText.split('\n'))` builds it
 * (word → row, first occurrence wins), in ~10 ms slices with the event loop let run between them:
 * 100,000 words take 30–100 ms in one go. Also returns the number of rows, for the file check.
 */
export async function indexWordsSliced(wordsText: string): Promise<{ index: Map<string, number>; rows: number }> {
  const index = new Map<string, number>();
  const slicer = createTimeSlicer();
  let row = 0;
  for (let start = 0; start <= wordsText.length; row++) {
    let end = wordsText.indexOf('\n', start);
    if (end === -1) end = wordsText.length;
    const word = wordsText.slice(start, end);
    if (!index.has(word)) index.set(word, row);
    start = end + 1;
    // Reading the clock costs more than indexing a word: look at it every 1,024 words.
    if ((row & 1023) === 1023 && slicer.due()) await slicer.yield();
  }
  return { index, rows: row };
}
