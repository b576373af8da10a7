import { createTimerScheduler } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { extract } from '../src/extract/extract.js';
import { ExtractError, MEDIA } from '../src/extract/extract-types.js';
import { createExtractionPool } from '../src/extract/extraction-pool.js';
import { makeDocx, makeDocxBomb, makePdf } from './fixtures/make-documents.js';

describe('extraction pool', () => {
  it('reuses one worker across extractions, replaces one that died, and ends idle ones on close', async () => {
    const scheduler = createTimerScheduler();
    const pool = createExtractionPool(scheduler);
    const options = { scheduler, pool };
    const pdf = await makePdf(['The heron count was forty-two.', 'Page two.']);
    const docx = makeDocx([{ text: 'Minutes', heading: 1 }, { text: 'The board approved the boathouse.' }]);
    expect((await extract(pdf, MEDIA.pdf, options)).text).toContain('forty-two');
    expect((await extract(docx, MEDIA.docx, options)).text).toContain('boathouse');
    // A typed refusal leaves the worker usable.
    const refused = await extract(Buffer.from('not a zip'), MEDIA.docx, options).catch((e) => e);
    expect(refused).toBeInstanceOf(ExtractError);
    expect((await extract(pdf, MEDIA.pdf, options)).text).toContain('forty-two');
    expect(pool.stats()).toEqual({ spawned: 1, idle: 1 });
    // A worker killed by its heap limit (or stopped by the time limit) is never reused.
    const bomb = await extract(makeDocxBomb(48), MEDIA.docx, {
      ...options,
      limits: { maxUnpackedBytes: 1024 ** 3, workerHeapMb: 64, timeoutMs: 15_000 },
    }).catch((e) => e);
    expect(['too-large', 'timeout']).toContain((bomb as ExtractError).reason);
    expect((await extract(docx, MEDIA.docx, options)).text).toContain('boathouse');
    // The 64 MB worker died with the bomb; the idle default-heap one served the DOCX.
    expect(pool.stats()).toEqual({ spawned: 2, idle: 1 });
    pool.close();
    expect(pool.stats().idle).toBe(0);
    // After close, an extraction still runs (its worker ends with it).
    expect((await extract(pdf, MEDIA.pdf, options)).text).toContain('forty-two');
    expect(pool.stats().idle).toBe(0);
  }, 180_000);
});
