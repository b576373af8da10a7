import { createManualClock, createManualScheduler } from '@memory/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedReason, isAllowed } from '../src/documents/address-guard.js';
import { DocumentFetchError, fetchDocument } from '../src/documents/fetch-document.js';
import { startServer } from './http-server.js';

// A second, independent guard on loopback (SSRF; every other special-purpose range is covered by
// address-guard.test.ts over the IANA registries): every address of 127.0.0.0/8 and ::1, in every
// spelling an IPv6 address can carry an IPv4 one, is refused; the ranges end exactly where they
// should; an allow-list entry opens only what it names; and a real server on 127.0.0.1 is never
// reached through the spellings a URL parser turns into 127.0.0.1.

const octet = fc.integer({ min: 0, max: 255 });
const hex = (n: number) => n.toString(16);

describe('loopback addresses', () => {
  it('refuses all of 127.0.0.0/8, dotted, IPv4-mapped (dotted and hex) and IPv4-compatible (property)', () => {
    fc.assert(
      fc.property(octet, octet, octet, (a, b, c) => {
        expect(blockedReason(`127.${a}.${b}.${c}`)).toBe('loopback');
        expect(blockedReason(`::ffff:127.${a}.${b}.${c}`)).toBe('loopback');
        expect(blockedReason(`::FFFF:${hex(0x7f00 + a)}:${hex(b * 256 + c)}`)).toBe('loopback');
        expect(blockedReason(`::127.${a}.${b}.${c}`)).toBe('loopback');
        expect(blockedReason(`0:0:0:0:0:ffff:127.${a}.${b}.${c}`)).toBe('loopback');
      }),
    );
  });

  it('stops exactly at the edges of 127.0.0.0/8 and ::1', () => {
    expect(blockedReason('126.255.255.255')).toBeUndefined();
    expect(blockedReason('128.0.0.0')).toBeUndefined();
    expect(blockedReason('::ffff:128.0.0.1')).toBeUndefined();
    for (const v6 of ['::1', '0:0:0:0:0:0:0:1', '0000::0001']) expect(blockedReason(v6)).toBe('loopback');
  });

  it('an allow-list entry opens only the loopback address or range it names (property)', () => {
    fc.assert(
      fc.property(octet, octet, octet, (a, b, c) => {
        const address = `127.${a}.${b}.${c}`;
        fc.pre(address !== '127.0.0.1');
        expect(isAllowed(address, address, ['127.0.0.1'])).toBe(false);
        expect(isAllowed(address, address, ['::1', 'localhost'])).toBe(false);
        expect(isAllowed(address, address, ['127.0.0.0/8'])).toBe(true);
        expect(isAllowed(address, address, [`127.${a}.${b}.0/24`])).toBe(true);
        expect(isAllowed(address, address, [`127.${(a + 1) % 256}.0.0/16`])).toBe(false);
      }),
    );
  });
});

describe('fetchDocument never reaches a loopback server without the allow-list', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({
      '/secret': (_req, res) => {
        res.setHeader('content-type', 'text/plain');
        res.end('internal admin page');
      },
    });
  });
  afterAll(() => server.close());

  it.each([
    ['the dotted address', (port: string) => `http://127.0.0.1:${port}/secret`],
    ['the short form 127.1', (port: string) => `http://127.1:${port}/secret`],
    ['the 32-bit decimal form', (port: string) => `http://2130706433:${port}/secret`],
    ['the hex octet form', (port: string) => `http://0x7f.0.0.1:${port}/secret`],
    ['an IPv4-mapped IPv6 literal', (port: string) => `http://[::ffff:127.0.0.1]:${port}/secret`],
    ['the name localhost', (port: string) => `http://localhost:${port}/secret`],
  ])('refuses %s before connecting', async (_name, url) => {
    const port = new URL(server.url('/')).port;
    const hitsBefore = server.hits.length;
    const clock = createManualClock(0);
    const error = await fetchDocument(url(port), {
      maxBytes: 1000,
      timeoutMs: 30_000,
      maxRedirects: 5,
      allowList: [],
      scheduler: createManualScheduler(clock),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DocumentFetchError);
    expect(error).toMatchObject({ reason: 'refused-address', permanent: true });
    expect(server.hits.length).toBe(hitsBefore);
  });
});
