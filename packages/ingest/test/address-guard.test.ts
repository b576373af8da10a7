import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { blockedReason, isAllowed } from '../src/documents/address-guard.js';

// The IANA IPv4 Special-Purpose Address Registry (iana-ipv4-special-registry), every entry, plus
// the multicast block (IPv4 Multicast Address Space Registry).
const IPV4_SPECIAL = [
  '0.0.0.0/8',
  '0.0.0.0/32',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.0.0/29',
  '192.0.0.8/32',
  '192.0.0.9/32',
  '192.0.0.10/32',
  '192.0.0.170/32',
  '192.0.0.171/32',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
  '255.255.255.255/32',
  '224.0.0.0/4',
];

// The IANA IPv6 Special-Purpose Address Registry (iana-ipv6-special-registry), every entry that does
// not embed an IPv4 address, plus multicast and the deprecated site-local block.
const IPV6_SPECIAL = [
  '::1/128',
  '::/128',
  '64:ff9b:1::/48',
  '100::/64',
  '100:0:0:1::/64',
  '2001::/23',
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:2::/48',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:10::/28',
  '2001:20::/28',
  '2001:30::/28',
  '2001:db8::/32',
  '2620:4f:8000::/48',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

/** The first, the last and two interior addresses of a CIDR block. */
function samples(cidr: string): string[] {
  const [network, prefix] = ipaddr.parseCIDR(cidr);
  const bytes = network.toByteArray();
  const bits = bytes.length * 8;
  const base = bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
  const host = bits - prefix;
  const span = host === 0 ? 0n : (1n << BigInt(host)) - 1n;
  const values = [base, base | span, base | (span >> 1n), base | (span & 0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5an)];
  return [...new Set(values)].map((value) => {
    const out: number[] = [];
    for (let i = bytes.length - 1; i >= 0; i--) out[i] = Number((value >> BigInt((bytes.length - 1 - i) * 8)) & 0xffn);
    return ipaddr.fromByteArray(out).toString();
  });
}

/** IPv6 forms that carry an IPv4 address, as functions of that address (dotted quad). */
const EMBEDDINGS: Record<string, (v4: string) => string> = {
  'IPv4-mapped ::ffff:0:0/96': (v4) => `::ffff:${v4}`,
  'IPv4-translated ::ffff:0:0:0/96': (v4) => `::ffff:0:${v4}`,
  'NAT64 64:ff9b::/96': (v4) => `64:ff9b::${v4}`,
  'IPv4-compatible ::/96': (v4) => `::${v4}`,
  '6to4 2002::/16': (v4) => {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
    return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`;
  },
  'Teredo client 2001::/32': (v4) => {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
    // A public server (8.8.4.4), the client's address inverted in the last 32 bits.
    return `2001:0:808:404:0:0:${(~((a << 8) | b) & 0xffff).toString(16)}:${(~((c << 8) | d) & 0xffff).toString(16)}`;
  },
  'Teredo server 2001::/32': (v4) => {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
    // The client is public (8.8.8.8, inverted).
    return `2001:0:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}:0:0:f7f7:f7f7`;
  },
};

const PUBLIC_V4 = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '192.169.0.1', '100.128.0.1'];
const PUBLIC_V6 = ['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:82a::200e', '2001:200::1'];

describe('address guard over the IANA special-purpose registries', () => {
  it.each(IPV4_SPECIAL)('refuses every sample of IPv4 %s', (cidr) => {
    for (const address of samples(cidr)) expect(blockedReason(address), address).toBeDefined();
  });

  it.each(IPV6_SPECIAL)('refuses every sample of IPv6 %s', (cidr) => {
    for (const address of samples(cidr)) expect(blockedReason(address), address).toBeDefined();
  });

  it.each(Object.keys(EMBEDDINGS))('judges %s by the IPv4 address it embeds', (name) => {
    const embed = EMBEDDINGS[name] as (v4: string) => string;
    for (const cidr of IPV4_SPECIAL) {
      for (const v4 of samples(cidr)) {
        const v6 = embed(v4);
        expect(ipaddr.IPv6.isValid(v6), v6).toBe(true);
        expect(blockedReason(v6), `${v6} (${v4})`).toBeDefined();
      }
    }
    for (const v4 of PUBLIC_V4) expect(blockedReason(embed(v4)), embed(v4)).toBeUndefined();
  });

  it('names the embedded address’s range as the reason', () => {
    expect(blockedReason('::ffff:0:7f00:1')).toBe('loopback');
    expect(blockedReason('64:ff9b::a9fe:a9fe')).toBe('link-local');
    expect(blockedReason('2002:a00:1::')).toBe('private');
    expect(blockedReason('2001:db8::1')).toBe('reserved');
    expect(blockedReason('100::1')).toBe('discard-only');
  });

  it.each([...PUBLIC_V4, ...PUBLIC_V6])('allows the public address %s', (address) => {
    expect(blockedReason(address)).toBeUndefined();
  });

  it('refuses what is not a literal address (names are resolved first, odd IPv4 forms are not guessed)', () => {
    for (const text of ['localhost', 'example.com', '0x7f.1', '2130706433', '127.1', '', '1.2.3.4.5', ':::'])
      expect(blockedReason(text), text).toBe('not an IP address');
  });

  it('matches allow-list entries by address value, not spelling', () => {
    expect(isAllowed('::1', '::1', ['0:0:0:0:0:0:0:1'])).toBe(true);
    expect(isAllowed('::ffff:127.0.0.1', 'localhost', ['127.0.0.1'])).toBe(true);
    expect(isAllowed('127.0.0.1', 'localhost', ['::/0'])).toBe(false);
    expect(isAllowed('10.1.2.3', 'x', ['10.0.0.0/8', 'not a cidr/8'])).toBe(true);
    expect(isAllowed('2001:db8::5', 'x', ['2001:db8::/32'])).toBe(true);
  });
});
