import { isIP } from 'node:net';

/**
 * Which addresses a document fetch may connect to. Loopback, private, link-local, unspecified,
 * carrier-grade NAT, multicast and reserved ranges are refused unless allow-listed, so a URL cannot
 * reach the host's own services or cloud metadata endpoints (SSRF).
 */

type Range = readonly [network: bigint, prefix: number, bits: 32 | 128, reason: string];

function v4(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6(address: string): bigint {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // An embedded dotted quad (::ffff:1.2.3.4) becomes two hex groups.
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted?.[1]) {
    const n = v4(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g || '0', 16)), 0n);
}

const V4_BLOCKED: readonly Range[] = [
  [v4('0.0.0.0'), 8, 32, 'unspecified'],
  [v4('10.0.0.0'), 8, 32, 'private'],
  [v4('100.64.0.0'), 10, 32, 'carrier-grade NAT'],
  [v4('127.0.0.0'), 8, 32, 'loopback'],
  [v4('169.254.0.0'), 16, 32, 'link-local'],
  [v4('172.16.0.0'), 12, 32, 'private'],
  [v4('192.0.0.0'), 24, 32, 'reserved'],
  [v4('192.168.0.0'), 16, 32, 'private'],
  [v4('198.18.0.0'), 15, 32, 'benchmarking'],
  [v4('224.0.0.0'), 4, 32, 'multicast'],
  [v4('240.0.0.0'), 4, 32, 'reserved'],
];

const V6_BLOCKED: readonly Range[] = [
  [0n, 128, 128, 'unspecified'],
  [1n, 128, 128, 'loopback'],
  [v6('fc00::'), 7, 128, 'private'],
  [v6('fe80::'), 10, 128, 'link-local'],
  [v6('ff00::'), 8, 128, 'multicast'],
  [v6('64:ff9b::'), 96, 128, 'NAT64'],
];

function inRange(value: bigint, [network, prefix, bits]: Range): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === network >> shift;
}

/** The embedded IPv4 address of an IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible IPv6 address. */
function embeddedV4(value: bigint): bigint | undefined {
  if (value >> 32n === 0xffffn) return value & 0xffffffffn;
  if (value >> 32n === 0n && value > 1n) return value & 0xffffffffn;
  return undefined;
}

/** Why an address is refused, or undefined when it is a public address. */
export function blockedReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return V4_BLOCKED.find((r) => inRange(v4(address), r))?.[3];
  if (family === 6) {
    const value = v6(address);
    const mapped = embeddedV4(value);
    if (mapped !== undefined) return V4_BLOCKED.find((r) => inRange(mapped, r))?.[3] ?? undefined;
    return V6_BLOCKED.find((r) => inRange(value, r))?.[3];
  }
  return 'not an IP address';
}

/**
 * An allow-list entry: an exact IP (`127.0.0.1`, `::1`) or a CIDR (`10.0.0.0/8`), for tests and
 * intranets. Host names are matched against the URL's host, case-insensitively.
 */
export function isAllowed(address: string, hostname: string, allowList: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  for (const entry of allowList) {
    const [base = '', prefixText] = entry.split('/');
    if (prefixText === undefined) {
      if (base.toLowerCase() === host || base === address) return true;
      continue;
    }
    const family = isIP(base);
    if (family === 0 || family !== isIP(address)) continue;
    const bits = family === 4 ? 32 : 128;
    const value = family === 4 ? v4(address) : v6(address);
    const network = family === 4 ? v4(base) : v6(base);
    if (inRange(value, [network, Number(prefixText), bits, ''])) return true;
  }
  return false;
}
