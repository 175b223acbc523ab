/**
 * SSRF guard for outbound webhook URLs (docs/decisions/0003-delivery-outbox.md).
 *
 * A URL is accepted only when it is http(s), carries no credentials, and every address its host resolves to is
 * a public unicast address. The host is resolved once, here; callers connect to the returned `address` (see
 * webhook.ts) so that a second lookup cannot swap in a different, internal answer (DNS rebinding).
 *
 * Classification is an allowlist for IPv6 (global unicast 2000::/3 only, minus special blocks) and a denylist
 * of every special-purpose IPv4 block, both as tables of CIDR ranges matched by ipaddr.js. IPv6 forms that
 * embed an IPv4 address (mapped, compatible, SIIT, NAT64, 6to4) are judged by the IPv4 address they carry.
 */
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '@pi/common/core';

export interface ResolvedTarget {
  /** The parsed URL; its hostname is what goes into the Host header and TLS SNI. */
  url: URL;
  /** The checked address to connect to (no brackets, no zone). */
  address: string;
  family: 4 | 6;
}

export interface SsrfOptions {
  /** Accept loopback addresses (127/8, ::1). Tests and development only; production refuses it. */
  allowLoopback: boolean;
}

export type SsrfReason = 'invalid_url' | 'unsupported_scheme' | 'credentials' | 'unresolvable' | 'refused_address';

/**
 * A URL the service must not call. A 400 `validation_error` on the `url` field, so a route saving a channel can
 * let it propagate; the sender turns it into a failed attempt. The message never contains the resolved address
 * (that would let a caller map internal DNS names) nor anything from the URL beyond its scheme.
 */
export class SsrfError extends ValidationError {
  constructor(
    readonly reason: SsrfReason,
    message: string,
  ) {
    super({ url: message }, message);
  }
}

export const REFUSED_ADDRESS_MESSAGE = 'url must not point to a private, loopback or link-local address';

/**
 * Checks `rawUrl` and resolves its host once. Resolves to the first address (in resolver order) when every
 * address is acceptable; throws `SsrfError` otherwise.
 */
export async function assertPublicUrl(rawUrl: string, opts: SsrfOptions): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new SsrfError('invalid_url', 'url must be a valid absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SsrfError('unsupported_scheme', 'url must use http or https');
  }
  if (url.username !== '' || url.password !== '') {
    throw new SsrfError('credentials', 'url must not contain a user name or password');
  }
  const host = stripBrackets(url.hostname);
  if (host === '') throw new SsrfError('invalid_url', 'url must have a host');

  const addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await resolveAll(host);
  if (addresses.length === 0) throw new SsrfError('unresolvable', 'url host could not be resolved');
  for (const { address } of addresses) {
    if (isRefusedAddress(address, opts)) throw new SsrfError('refused_address', REFUSED_ADDRESS_MESSAGE);
  }
  const first = addresses[0];
  return { url, address: stripZone(first.address), family: first.family === 6 ? 6 : 4 };
}

async function resolveAll(host: string): Promise<dns.LookupAddress[]> {
  try {
    // `dns.lookup` is read at call time (not destructured at import) so tests can observe or stub it.
    return await new Promise<dns.LookupAddress[]>((resolve, reject) => {
      dns.lookup(host, { all: true, verbatim: true }, (err, list) => (err ? reject(err) : resolve(list)));
    });
  } catch {
    throw new SsrfError('unresolvable', 'url host could not be resolved');
  }
}

/**
 * True when the service must not connect to `ip`. Anything that is not a syntactically valid IP address is
 * refused too. Accepts bracketed IPv6 (`[::1]`) and zone ids (`fe80::1%eth0`, always refused).
 */
export function isRefusedAddress(ip: string, opts: SsrfOptions): boolean {
  const text = stripBrackets(ip.trim());
  if (text.includes('%')) {
    // A zone id only makes sense for link-local and other scoped addresses: refuse whatever it is attached to.
    return true;
  }
  // net.isIP is strict (four dotted decimals, or RFC 4291 text); ipaddr.js alone would also take `127.1`,
  // `0x7f.1` or `2130706433`, spellings that only a URL parser should turn into an address.
  const kind = net.isIP(text);
  if (kind === 4) return isRefusedV4(ipaddr.IPv4.parse(text), opts);
  if (kind === 6) return isRefusedV6(ipaddr.IPv6.parse(text), opts);
  return true;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function stripZone(address: string): string {
  const at = address.indexOf('%');
  return at === -1 ? address : address.slice(0, at);
}

const v4 = (cidr: string) => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);

// ---- IPv4 -------------------------------------------------------------------------------------------------

/**
 * How IPv4 blocks are judged (IANA special-purpose registry), for ipaddr.js's `subnetMatch`: the first
 * matching entry wins, an address in none of them is public.
 */
const V4_RANGES: Record<string, Array<[ipaddr.IPv4, number]>> = {
  loopback: [v4('127.0.0.0/8')],
  refused: [
    v4('0.0.0.0/8'), // "this network", unspecified
    v4('10.0.0.0/8'), // private
    v4('100.64.0.0/10'), // CGNAT shared address space
    v4('169.254.0.0/16'), // link-local (cloud metadata endpoints live here)
    v4('172.16.0.0/12'), // private
    v4('192.0.0.0/24'), // IETF protocol assignments
    v4('192.0.2.0/24'), // TEST-NET-1
    v4('192.88.99.0/24'), // 6to4 relay anycast (deprecated)
    v4('192.168.0.0/16'), // private
    v4('198.18.0.0/15'), // benchmarking
    v4('198.51.100.0/24'), // TEST-NET-2
    v4('203.0.113.0/24'), // TEST-NET-3
    v4('224.0.0.0/4'), // multicast
    v4('240.0.0.0/4'), // reserved, including the 255.255.255.255 broadcast
  ],
};

function isRefusedV4(ip: ipaddr.IPv4, opts: SsrfOptions): boolean {
  const verdict = ipaddr.subnetMatch(ip, V4_RANGES, 'public');
  if (verdict === 'loopback') return !opts.allowLoopback;
  return verdict === 'refused';
}

// ---- IPv6 -------------------------------------------------------------------------------------------------

/**
 * How IPv6 blocks are judged, first match wins. An allowlist: only global unicast (2000::/3) may pass, which
 * refuses ULA fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8, discard 100::/64 and
 * every other reserved block. Forms that carry an IPv4 address are judged by that address.
 */
const V6_RANGES: Record<string, Array<[ipaddr.IPv6, number]>> = {
  loopback: [v6('::1/128')],
  refused: [
    v6('::/128'), // unspecified
    v6('64:ff9b:1::/48'), // local-use NAT64
    v6('2001::/23'), // IETF protocol assignments: Teredo, benchmarking, ORCHID, …
    v6('2001:db8::/32'), // documentation
    v6('3fff::/20'), // documentation (RFC 9637)
  ],
  embedsV4Last32: [
    v6('::ffff:0:0/96'), // IPv4-mapped
    v6('::/96'), // IPv4-compatible (deprecated)
    v6('::ffff:0:0:0/96'), // SIIT
    v6('64:ff9b::/96'), // well-known NAT64 prefix
  ],
  embedsV4After16: [v6('2002::/16')], // 6to4: the 32 bits after the prefix
  public: [v6('2000::/3')],
};

function isRefusedV6(ip: ipaddr.IPv6, opts: SsrfOptions): boolean {
  const bytes = ip.toByteArray();
  switch (ipaddr.subnetMatch(ip, V6_RANGES, 'refused')) {
    case 'loopback':
      return !opts.allowLoopback;
    case 'embedsV4Last32':
      return isRefusedV4(new ipaddr.IPv4(bytes.slice(12, 16)), opts);
    case 'embedsV4After16':
      return isRefusedV4(new ipaddr.IPv4(bytes.slice(2, 6)), opts);
    case 'public':
      return false;
    default:
      return true;
  }
}
