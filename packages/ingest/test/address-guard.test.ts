import { createManualClock, createManualScheduler } from '@memory/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedReason, isAllowed } from '../src/documents/address-guard.js';
import { DocumentFetchError, fetchDocument } from '../src/documents/fetch-document.js';
import { startServer } from './http-server.js';

// A second, independent guard on loopback (SSRF): every address of 127.0.0.0/8 and ::1, in every
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
    expect(blockedReason('2001:db8::1')).toBeUndefined();
    expect(blockedReason('1::')).toBeUndefined();
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

describe('every refused range names its reason', () => {
  it.each([
    ['0.1.2.3', 'unspecified'],
    ['10.255.0.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['172.31.0.1', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.168.255.255', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.251', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['fdff::1', 'private'],
    ['febf::1', 'link-local'],
    ['ff05::2', 'multicast'],
    ['64:ff9b::808:808', 'NAT64'],
    ['64:ff9b::8.8.8.8', 'NAT64'],
  ])('%s is refused as %s', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it.each([
    '100.128.0.0',
    '172.32.0.1',
    '192.0.1.1',
    '198.20.0.0',
    '223.255.255.255',
    'fec0::1',
    '64:ff9c::1',
    '2606:4700::1111',
  ])('%s is public', (address) => {
    expect(blockedReason(address)).toBeUndefined();
  });
});

describe('allow-list entries by family', () => {
  it('matches IPv6 CIDRs against IPv6 addresses only, and bracketed IPv6 hosts by name', () => {
    expect(isAllowed('fd12::7', 'x', ['fd12::/16'])).toBe(true);
    expect(isAllowed('fd13::7', 'x', ['fd12::/16'])).toBe(false);
    expect(isAllowed('fd12:abcd:1::7', 'x', ['fd12::/16'])).toBe(true);
    expect(isAllowed('fd12:abcd:1::7', 'x', ['fd12:abcd::/32'])).toBe(true);
    expect(isAllowed('fd12:abce:1::7', 'x', ['fd12:abcd::/32'])).toBe(false);
    expect(isAllowed('::1', '[::1]', ['::1'])).toBe(true);
    expect(isAllowed('::1', '[::1]', ['[::1]'])).toBe(false);
    // A v4 CIDR never opens a v6 address and the other way round, even when the bits would line up.
    expect(isAllowed('::a00:1', 'x', ['10.0.0.0/8'])).toBe(false);
    expect(isAllowed('10.0.0.1', 'x', ['::/0'])).toBe(false);
    expect(isAllowed('10.0.0.1', 'x', ['0.0.0.0/0'])).toBe(true);
    // An exact address entry matches the resolved address whatever name led there.
    expect(isAllowed('127.0.0.1', 'localhost', ['127.0.0.1'])).toBe(true);
    // A host name entry with a prefix is not a CIDR.
    expect(isAllowed('10.0.0.1', 'intranet', ['intranet/8'])).toBe(false);
  });
});
