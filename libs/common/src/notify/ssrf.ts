/**
 * SSRF guard for outbound webhook URLs (docs/decisions/0003-delivery-outbox.md).
 *
 * A URL is accepted only when it is http(s), carries no credentials, and every address its host resolves to is
 * a public unicast address. The host is resolved once, here; callers connect to the returned `address` (see
 * webhook.ts) so that a second lookup cannot swap in a different, internal answer (DNS rebinding).
 *
 * Classification is an allowlist for IPv6 (global unicast 2000::/3 only, minus special blocks) and a denylist
 * of every special-purpose IPv4 block. IPv6 forms that embed an IPv4 address (mapped, compatible, SIIT, NAT64,
 * 6to4) are judged by the IPv4 address they carry.
 */
import dns from 'node:dns';
import net from 'node:net';
import { ValidationError } from '../errors';

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
  const kind = net.isIP(text);
  if (kind === 4) return isRefusedV4(parseV4(text), opts);
  if (kind === 6) return isRefusedV6(parseV6(text), opts);
  return true;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function stripZone(address: string): string {
  const at = address.indexOf('%');
  return at === -1 ? address : address.slice(0, at);
}

// ---- IPv4 -------------------------------------------------------------------------------------------------

/** [network, prefix length] pairs refused for IPv4, loopback aside. Sources: IANA special-purpose registry. */
const REFUSED_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT shared address space
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the 255.255.255.255 broadcast
];

const LOOPBACK_V4: readonly [string, number] = ['127.0.0.0', 8];

function parseV4(text: string): number {
  const [a, b, c, d] = text.split('.').map(Number);
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function inV4(ip: number, [network, bits]: readonly [string, number]): boolean {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((parseV4(network) & mask) >>> 0);
}

function isRefusedV4(ip: number, opts: SsrfOptions): boolean {
  if (inV4(ip, LOOPBACK_V4)) return !opts.allowLoopback;
  return REFUSED_V4.some((block) => inV4(ip, block));
}

// ---- IPv6 -------------------------------------------------------------------------------------------------

/** Eight 16-bit groups. The input has already passed `net.isIPv6`. */
function parseV6(text: string): number[] {
  let body = text.toLowerCase();
  const lastColon = body.lastIndexOf(':');
  const last = body.slice(lastColon + 1);
  if (last.includes('.')) {
    // Rewrite a trailing dotted quad (`::ffff:127.0.0.1`) as two hex groups (`::ffff:7f00:1`).
    const v4 = parseV4(last);
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const halves = body.split('::');
  if (halves.length === 1) return parse(body);
  const head = parse(halves[0]);
  const rest = parse(halves[1]);
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

function embeddedV4(high: number, low: number): number {
  return ((high << 16) | low) >>> 0;
}

function isRefusedV6(g: number[], opts: SsrfOptions): boolean {
  const firstSixZero = g.slice(0, 6).every((x) => x === 0);
  const firstFiveZero = g.slice(0, 5).every((x) => x === 0);

  // ::/128 unspecified and ::1 loopback.
  if (g.every((x) => x === 0)) return true;
  if (firstSixZero && g[6] === 0 && g[7] === 1) return !opts.allowLoopback;
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (deprecated compatible), ::ffff:0:a.b.c.d (SIIT): judge the IPv4.
  if (firstSixZero) return isRefusedV4(embeddedV4(g[6], g[7]), opts);
  if (firstFiveZero && g[5] === 0xffff) return isRefusedV4(embeddedV4(g[6], g[7]), opts);
  if (g.slice(0, 4).every((x) => x === 0) && g[4] === 0xffff && g[5] === 0) {
    return isRefusedV4(embeddedV4(g[6], g[7]), opts);
  }
  // 64:ff9b::/96 well-known NAT64 prefix: judge the IPv4; 64:ff9b:1::/48 local-use NAT64: refuse.
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g.slice(2, 6).every((x) => x === 0)) return isRefusedV4(embeddedV4(g[6], g[7]), opts);
    return true;
  }
  // Only global unicast (2000::/3) may pass; this refuses ULA fc00::/7, link-local fe80::/10, site-local
  // fec0::/10, multicast ff00::/8, discard 100::/64 and every other reserved block.
  if ((g[0] & 0xe000) !== 0x2000) return true;
  // 2001::/23 IETF protocol assignments: Teredo, benchmarking, ORCHID, … and 2001:db8::/32 documentation.
  if (g[0] === 0x2001 && (g[1] < 0x200 || g[1] === 0xdb8)) return true;
  // 3fff::/20 documentation (RFC 9637).
  if (g[0] === 0x3fff && (g[1] & 0xf000) === 0) return true;
  // 2002::/16 6to4: the next 32 bits are an IPv4 address.
  if (g[0] === 0x2002) return isRefusedV4(embeddedV4(g[1], g[2]), opts);
  return false;
}
