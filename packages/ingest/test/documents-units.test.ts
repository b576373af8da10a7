import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockedReason, isAllowed } from '../src/documents/address-guard.js';
import { chunkText } from '../src/documents/chunk-text.js';
import { extractText } from '../src/documents/extract-text.js';
import { extractHtml } from '../src/extract/extract-html.js';

describe('address guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::127.0.0.1', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
  ])('allows public %s', (address) => {
    expect(blockedReason(address)).toBeUndefined();
  });

  it('treats names that are not addresses as refused (they must be resolved first)', () => {
    expect(blockedReason('localhost')).toBe('not an IP address');
  });

  it('honours exact, CIDR and host-name allow-list entries', () => {
    expect(isAllowed('127.0.0.1', '127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(isAllowed('10.9.8.7', 'wiki.corp', ['10.0.0.0/8'])).toBe(true);
    expect(isAllowed('10.9.8.7', 'wiki.corp', ['10.0.0.0/16'])).toBe(false);
    expect(isAllowed('10.9.8.7', 'wiki.corp', ['WIKI.corp'])).toBe(true);
    expect(isAllowed('fd00::5', 'x', ['fd00::/8'])).toBe(true);
    expect(isAllowed('127.0.0.2', '127.0.0.2', ['127.0.0.1'])).toBe(false);
  });
});

describe('chunking', () => {
  it('cuts at paragraph breaks, then sentences, with overlap', () => {
    const para = (n: number) => `Paragraph ${n} starts here. ${'Lorem ipsum dolor sit amet. '.repeat(5)}`.trim();
    const text = [1, 2, 3, 4].map(para).join('\n\n');
    const chunks = chunkText(text, 400, 40);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(400);
    expect(chunks[0]?.endsWith('.')).toBe(true); // a boundary, not mid-word
    // Neighbours overlap: each chunk starts with text the previous one ends with.
    for (let i = 1; i < chunks.length; i++) {
      const head = (chunks[i] ?? '').slice(0, 15);
      expect(head.length).toBe(15);
      expect(chunks[i - 1]?.slice(-60)).toContain(head);
    }
  });

  it('never cuts a word in half when the window has a space (found by the property below)', () => {
    const chunks = chunkText('. . \n\n . aaaaaaaaaaaa', 20, 0);
    expect(chunks.join(' ')).toContain('aaaaaaaaaaaa');
  });

  it('returns nothing for blank text and one chunk for short text', () => {
    expect(chunkText('  \n ', 100, 10)).toEqual([]);
    expect(chunkText('short text', 100, 10)).toEqual(['short text']);
  });

  it('covers every word, never exceeds the size, always moves forward (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.stringMatching(/^[a-z]{1,12}$/), fc.constantFrom('.', '\n\n', '!', '\n')), {
          maxLength: 400,
        }),
        fc.integer({ min: 20, max: 300 }),
        fc.integer({ min: 0, max: 100 }),
        (parts, size, overlap) => {
          const text = parts.join(' ');
          const chunks = chunkText(text, size, overlap);
          for (const c of chunks) expect(c.length).toBeLessThanOrEqual(size);
          const joined = chunks.join(' ');
          for (const word of text.split(/\s+/).filter((w) => /^[a-z]+$/.test(w) && w.length < size))
            expect(joined).toContain(word);
          expect(chunks.length).toBeLessThanOrEqual(Math.max(1, text.length));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('text extraction', () => {
  it('extracts HTML as Markdown: title kept, scripts, styles and comments dropped, entities decoded', () => {
    const html = `<!doctype html><html><head><title> Q3 &amp; Q4 Plan </title><style>p{color:red}</style></head>
      <body><script>alert("x")</script><h2>Roadmap</h2><p>Ship the <b>billing</b> service &mdash; by March.</p><!-- hidden --><p>Caf&#233; &#x2014; ok</p></body></html>`;
    const { text, title } = extractHtml(html);
    expect(title).toBe('Q3 & Q4 Plan');
    expect(text).toBe('## Roadmap\n\nShip the billing service — by March.\n\nCafé — ok');
    expect(text).not.toMatch(/alert|color|hidden/);
  });

  it('takes a Markdown document’s first heading as its title, and pretty-prints JSON', () => {
    expect(extractText('intro\n# Release notes\n\nbody', 'text/markdown').title).toBe('Release notes');
    expect(extractText('{"a":1}', 'application/json').text).toBe('{\n  "a": 1\n}');
    expect(extractText('{not json', 'application/json').text).toBe('{not json');
  });
});
