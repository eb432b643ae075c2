import ipaddr from 'ipaddr.js';

/**
 * The one judgement of which addresses a server-side request to a user-supplied URL may reach.
 * `checkPublicUrl` applies it to literal IPs in the URL; the DNS-pinned lookup in
 * `public-url.ts` applies it to every address a name resolves to, at connect time.
 *
 * Parsing and range tables come from ipaddr.js (the parser express's proxy-addr uses), so every
 * spelling — hex or dotted tail, zero-compressed, uppercase, zone id — is read the same way.
 * The rule is an allow-list: only ranges ipaddr.js calls plain `unicast` are reachable. A range a
 * future release names is refused until it is judged here.
 *
 * An IPv6 address that carries an IPv4 address is judged as that IPv4 address too:
 * IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::a.b.c.d` and 6to4 `2002:aabb:ccdd::`. Two embedding ranges are refused whole:
 * the local-use NAT64 prefix `64:ff9b:1::/48` (a private translator whose prefix length, and so
 * where the IPv4 sits, we cannot know) and Teredo `2001::/32` (a NAT-traversal tunnel whose
 * client address is obfuscated; no public service lives there).
 */

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

export interface AddressJudgement {
  blocked: boolean;
  /** The address as ipaddr.js normalises it, or the input if it is not an IP. */
  address: string;
  /** The IPv4 address an IPv6 form carries, when it carries one. */
  embeddedIpv4?: string;
  /** Why it is blocked, for error messages: the range name or "not an IP address". */
  reason?: string;
}

/** Ranges whose IPv4 payload sits in the last 32 bits (mapped, translated, NAT64 /96). */
const LAST_32_BITS = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052']);
const LOCAL_USE_NAT64 = ipaddr.IPv6.parse('64:ff9b:1::');

/** Parses an IP literal, bracketed or not, with or without a zone id. Null if it is not one. */
export function parseIp(raw: string): Ip | null {
  const bare = raw.trim().replace(/^\[(.*)\]$/, '$1');
  if (bare.includes(':')) return ipaddr.IPv6.isValid(bare) ? ipaddr.IPv6.parse(bare) : null;
  // Only dotted quads: resolvers and the WHATWG URL parser already turn 0x7f.1 or 2130706433
  // into one, and a bare number here is a hostname, not an address.
  return ipaddr.IPv4.isValidFourPartDecimal(bare) ? ipaddr.IPv4.parse(bare) : null;
}

function ipv4From(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** The IPv4 address an IPv6 address carries, if its form embeds one. */
export function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = ip.parts as [number, number, number, number, number, number, number, number];
  const range = ip.range();
  // The local-use 64:ff9b:1::/48 is refused whole (below), but read as a /96 here so that a
  // private payload is named in the message.
  if (LAST_32_BITS.has(range)) return ipv4From(p[6], p[7]);
  if (range === '6to4') return ipv4From(p[1], p[2]);
  // IPv4-compatible (deprecated, RFC 4291): 96 zero bits, then the IPv4 address. :: and ::1 are
  // the IPv6 unspecified and loopback addresses and are judged as such.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1)) return ipv4From(p[6], p[7]);
  return null;
}

/** Judges one address. Anything that is not an IP address is blocked. */
export function judgeAddress(raw: string): AddressJudgement {
  const ip = parseIp(raw);
  if (!ip) return { blocked: true, address: raw, reason: 'not an IP address' };
  const address = ip.toString();
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? { blocked: false, address } : { blocked: true, address, reason: range };
  }
  const v6 = ip as ipaddr.IPv6;
  const v4 = embeddedIpv4(v6);
  if (v4) {
    const embedded = v4.toString();
    const v4Range = v4.range();
    if (v4Range !== 'unicast') return { blocked: true, address, embeddedIpv4: embedded, reason: v4Range };
    if (v6.match(LOCAL_USE_NAT64, 48)) {
      return { blocked: true, address, embeddedIpv4: embedded, reason: 'local-use NAT64' };
    }
    return { blocked: false, address, embeddedIpv4: embedded };
  }
  // Teredo and every other named range (loopback, ULA, link-local, documentation, ...) stop here.
  const range = v6.range();
  return range === 'unicast' ? { blocked: false, address } : { blocked: true, address, reason: range };
}

/** True for any address a public-URL fetch must refuse. Anything that is not an IP is refused too. */
export function isBlockedAddress(address: string): boolean {
  return judgeAddress(address).blocked;
}
