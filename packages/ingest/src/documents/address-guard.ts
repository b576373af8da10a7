import ipaddr from 'ipaddr.js';

/**
 * Which addresses a document fetch may connect to (the SSRF guard). Only global unicast addresses
 * pass: every special-purpose range of the IANA IPv4 and IPv6 registries (loopback, private,
 * link-local, unspecified, carrier-grade NAT, documentation, benchmarking, discard, multicast,
 * reserved...) is refused unless allow-listed, so a URL cannot reach the host's own services or a
 * cloud metadata endpoint. Addresses are classified by `ipaddr.js`, not by hand-written ranges.
 *
 * IPv6 addresses that carry an IPv4 address (IPv4-mapped and -translated, the well-known NAT64
 * prefix, 6to4, Teredo, the deprecated IPv4-compatible form) are judged by the IPv4 address they
 * lead to: `::ffff:127.0.0.1`, `64:ff9b::a9fe:a9fe` and `2002:7f00:1::` are loopback or link-local
 * in disguise.
 */

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

// ipaddr.js range names as the refusal reason callers see (unlisted names are shown as they are).
const REASONS: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  uniqueLocal: 'private',
  reserved: 'reserved',
  as112: 'AS112',
  as112v6: 'AS112',
  amt: 'AMT',
  benchmarking: 'benchmarking',
  discard: 'discard-only',
  deprecatedSiteLocal: 'site-local',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHID',
  droneRemoteIdProtocolEntityTags: 'drone remote ID',
  segmentRouting: 'segment routing',
  rfc6052: 'local-use NAT64',
};

// Prefixes whose last 32 bits are the IPv4 address the packet goes to.
const TAIL_EMBEDDING: ReadonlyArray<[IPv6, number]> = [
  ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), // IPv4-mapped
  ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), // IPv4-translated (RFC 6145)
  ipaddr.IPv6.parseCIDR('64:ff9b::/96'), // well-known NAT64 prefix (RFC 6052)
  ipaddr.IPv6.parseCIDR('::/96'), // IPv4-compatible (deprecated); :: and ::1 are checked first
];
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');
const TEREDO = ipaddr.IPv6.parseCIDR('2001::/32');
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function v4FromParts(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function v4Reason(address: IPv4): string | undefined {
  const range = address.range();
  return range === 'unicast' ? undefined : (REASONS[range] ?? range);
}

function v6Reason(address: IPv6): string | undefined {
  const range = address.range();
  if (range === 'unspecified' || range === 'loopback') return REASONS[range];
  const p = address.parts;
  if (TAIL_EMBEDDING.some((cidr) => address.match(cidr))) return v4Reason(v4FromParts(p[6] ?? 0, p[7] ?? 0));
  if (address.match(SIX_TO_FOUR)) return v4Reason(v4FromParts(p[1] ?? 0, p[2] ?? 0));
  if (address.match(TEREDO)) {
    // RFC 4380: the server's IPv4 address in bits 32–63, the client's (inverted) in the last 32 bits.
    const client = v4FromParts(~(p[6] ?? 0) & 0xffff, ~(p[7] ?? 0) & 0xffff);
    return v4Reason(v4FromParts(p[2] ?? 0, p[3] ?? 0)) ?? v4Reason(client);
  }
  if (range !== 'unicast') return REASONS[range] ?? range;
  // Outside 2000::/3 nothing is allocated for global unicast (e.g. 100:0:0:1::/64, the dummy prefix).
  return address.match(GLOBAL_UNICAST) ? undefined : 'not global unicast';
}

/** Parses an IPv4 or IPv6 address (a zone id is dropped); undefined when it is not one. */
function parseAddress(address: string): IPv4 | IPv6 | undefined {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/s, '');
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) && !ipaddr.IPv6.isValid(text)) return undefined;
  return ipaddr.parse(text);
}

/**
 * Why an address is refused, or undefined when it is a global unicast address. Only literal
 * addresses are judged (four-part decimal IPv4 or IPv6); a host name is refused until resolved.
 */
export function blockedReason(address: string): string | undefined {
  const parsed = parseAddress(address);
  if (!parsed) return 'not an IP address';
  return parsed.kind() === 'ipv4' ? v4Reason(parsed as IPv4) : v6Reason(parsed as IPv6);
}

/** IPv4-mapped IPv6 addresses compare as the IPv4 address they carry. */
function comparable(address: IPv4 | IPv6): IPv4 | IPv6 {
  return address.kind() === 'ipv6' && (address as IPv6).isIPv4MappedAddress()
    ? (address as IPv6).toIPv4Address()
    : address;
}

/**
 * An allow-list entry: an exact IP (`127.0.0.1`, `::1`) or a CIDR (`10.0.0.0/8`), for tests and
 * intranets. Host names are matched against the URL's host, case-insensitively.
 */
export function isAllowed(address: string, hostname: string, allowList: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const parsed = parseAddress(address);
  const target = parsed ? comparable(parsed) : undefined;
  for (const entry of allowList) {
    if (entry.toLowerCase() === host) return true;
    if (!target) continue;
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) continue;
      const [network, prefix] = ipaddr.parseCIDR(entry);
      if (network.kind() === target.kind() && target.match(network, prefix)) return true;
      continue;
    }
    const exact = parseAddress(entry);
    if (exact && comparable(exact).toNormalizedString() === target.toNormalizedString()) {
      if (comparable(exact).kind() === target.kind()) return true;
    }
  }
  return false;
}
