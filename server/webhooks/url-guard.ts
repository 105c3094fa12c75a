// Webhook URL guard (docs/rules.md#webhook-urls-and-secrets).
//
// A webhook URL must be https:// and publicly reachable. "Public" means global unicast only:
// every address a name resolves to is checked, numeric host spellings are normalised first,
// and IPv4-embedding IPv6 forms (mapped, compatible, NAT64, 6to4, Teredo) are judged by the
// IPv4 address they carry. The same check runs at registration and at every attempt, and the
// socket of an attempt connects through `createGuardedLookup`, which re-checks the addresses it
// hands to `net.connect` (no DNS-rebinding window between check and connect).

import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors';

export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/** The system resolver (getaddrinfo), every A/AAAA answer in the resolver's own order. */
export const defaultResolver: Resolver = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export const MAX_WEBHOOK_URL_LENGTH = 2048;

// ---------------------------------------------------------------------------------------------
// Address classification

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;
type Cidr<T> = [T, number];

const v4 = (cidr: string): Cidr<IPv4> => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string): Cidr<IPv6> => ipaddr.IPv6.parseCIDR(cidr);

// ipaddr.js (2.5) already gives every one of these a range name other than 'unicast'. They are
// repeated here so that a change in the library's table (older or newer versions have differed)
// can never silently turn a non-global IPv4 range into an accepted one. IANA IPv4
// Special-Purpose Address Registry, all entries that are not globally reachable.
const NON_GLOBAL_V4: Cidr<IPv4>[] = [
  '0.0.0.0/8', // "this network", unspecified
  '10.0.0.0/8', // RFC 1918
  '100.64.0.0/10', // carrier-grade NAT, RFC 6598
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, incl. cloud metadata 169.254.169.254
  '172.16.0.0/12', // RFC 1918
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // TEST-NET-1
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // RFC 1918
  '198.18.0.0/15', // benchmarking, RFC 2544
  '198.51.100.0/24', // TEST-NET-2
  '203.0.113.0/24', // TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved (class E)
  '255.255.255.255/32', // limited broadcast
].map(v4);

// IPv6 global unicast is allocated from 2000::/3 only. Everything ipaddr.js calls 'unicast'
// outside it (e.g. deprecated IPv4-compatible ::a.b.c.d, unassigned space) is refused; inside
// it these are not global (ipaddr.js classifies most of them already; again belt and braces).
const GLOBAL_UNICAST_V6 = v6('2000::/3');
const NON_GLOBAL_V6: Cidr<IPv6>[] = [
  '2001::/23', // IETF protocol assignments (Teredo 2001::/32 is handled before this list)
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation, RFC 9637
  '2620:4f:8000::/48', // AS112
].map(v6);
const NAT64_WELL_KNOWN = v6('64:ff9b::/96');

function isPublicV4(ip: IPv4): boolean {
  if (ip.range() !== 'unicast') return false;
  return !NON_GLOBAL_V4.some((cidr) => ip.match(cidr));
}

/** The IPv4 address in 16-bit groups `hi` and `lo` of an IPv6 address (optionally bit-inverted). */
function embeddedV4(ip: IPv6, hi: number, lo: number, invert = false): IPv4 {
  const mask = invert ? 0xffff : 0;
  const h = (ip.parts[hi] ?? 0) ^ mask;
  const l = (ip.parts[lo] ?? 0) ^ mask;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}

function isPublicV6(ip: IPv6): boolean {
  switch (ip.range()) {
    case 'unicast':
      return ip.match(GLOBAL_UNICAST_V6) && !NON_GLOBAL_V6.some((cidr) => ip.match(cidr));
    case 'ipv4Mapped': // ::ffff:a.b.c.d
      return isPublicV4(ip.toIPv4Address());
    case 'rfc6052':
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits. 64:ff9b:1::/48 (RFC 8215) is
      // for local use only, with an operator-chosen embedding: never global.
      return ip.match(NAT64_WELL_KNOWN) && isPublicV4(embeddedV4(ip, 6, 7));
    case '6to4': // 2002:AABB:CCDD::/48 carries A.B.C.D
      return isPublicV4(embeddedV4(ip, 1, 2));
    case 'teredo': // 2001:0:<server v4>:<flags>:<port^ffff>:<client v4 ^ ffffffff>
      return isPublicV4(embeddedV4(ip, 2, 3)) && isPublicV4(embeddedV4(ip, 6, 7, true));
    default:
      // loopback, unspecified, linkLocal, uniqueLocal, multicast, rfc6145, discard, reserved,
      // benchmarking, deprecatedSiteLocal, orchid, amt, as112v6, segmentRouting, ...
      return false;
  }
}

/**
 * True only for a global unicast address. Anything that is not an IP address (after the
 * numeric-spelling normalisation of `normalizeHost`) is false.
 */
export function isPublicAddress(address: string): boolean {
  const ip = parseIpLiteral(normalizeHost(address));
  if (!ip) return false;
  return ip.kind() === 'ipv4' ? isPublicV4(ip as IPv4) : isPublicV6(ip as IPv6);
}

// ---------------------------------------------------------------------------------------------
// Host normalisation

/**
 * The WHATWG URL "IPv4 parser" (the same rules inet_aton applies): 1 to 4 dot-separated parts,
 * each decimal, octal (leading 0) or hexadecimal (0x); the last part fills the remaining bytes.
 * Returns null when the host is not an IPv4 number in any spelling.
 */
function parseIPv4Number(host: string): IPv4 | null {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    let digits = part;
    let radix = 10;
    if (/^0x/i.test(digits)) {
      digits = digits.slice(2);
      radix = 16;
    } else if (digits.length > 1 && digits.startsWith('0')) {
      digits = digits.slice(1);
      radix = 8;
    }
    if (part === '') return null;
    const valid = radix === 16 ? /^[0-9a-f]*$/i : radix === 8 ? /^[0-7]*$/ : /^[0-9]+$/;
    if (!valid.test(digits)) return null;
    const n = digits === '' ? 0 : parseInt(digits, radix);
    if (!Number.isSafeInteger(n)) return null;
    numbers.push(n);
  }
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return new ipaddr.IPv4([(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}

/** An IP address in any accepted spelling (IPv4 numeric forms, IPv6 with or without brackets). */
function parseIpLiteral(host: string): IPv4 | IPv6 | null {
  let h = host.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.includes(':')) {
    if (!ipaddr.IPv6.isValid(h)) return null;
    try {
      return ipaddr.IPv6.parse(h);
    } catch {
      return null;
    }
  }
  return parseIPv4Number(h);
}

/**
 * Lower-cases a host name and, when it is an IP address, writes it canonically: IPv4 in
 * dotted-quad (decimal "2130706433", octal "0177.0.0.1", hex "0x7f.0.0.1" and short "127.1"
 * all become "127.0.0.1"), IPv6 without brackets in RFC 5952 form ("[::FFFF:127.0.0.1]"
 * becomes "::ffff:7f00:1"). Other names are returned trimmed and lower-cased.
 *
 * The WHATWG URL parser already does this for http(s) URLs; this is for hosts that reach the
 * guard by another way (a lookup callback, a resolver answer).
 */
export function normalizeHost(hostname: string): string {
  const h = hostname.trim().toLowerCase();
  const ip = parseIpLiteral(h);
  if (!ip) return h;
  return ip.kind() === 'ipv6' ? (ip as IPv6).toRFC5952String() : ip.toString();
}

/** Whether a (normalized) host is a numeric address rather than a name. */
export function isIpLiteral(host: string): boolean {
  return parseIpLiteral(host) !== null;
}

function familyOf(address: string): 4 | 6 {
  return address.includes(':') ? 6 : 4;
}

// ---------------------------------------------------------------------------------------------
// URL check

export type WebhookUrlRejection =
  | 'invalid_url'
  | 'scheme'
  | 'userinfo'
  | 'too_long'
  | 'unresolvable'
  | 'non_public';

/**
 * A webhook URL that is well-formed but not acceptable (422, Form B 400). Still an AppError with
 * code 'validation_error'; `reason` and `address` let the delivery log write its short error
 * strings ("blocked: private address …").
 */
export class WebhookUrlError extends AppError {
  constructor(
    readonly reason: WebhookUrlRejection,
    message: string,
    /** The offending address, for reason 'non_public'. */
    readonly address?: string,
  ) {
    super('validation_error', message);
  }
}

export interface UrlGuardOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: allow http:// and private or loopback targets. */
  allowPrivate: boolean;
  /** DNS resolver; defaults to the system resolver. Injected in tests. */
  resolve?: Resolver;
}

async function resolveHost(host: string, resolve: Resolver): Promise<string[]> {
  let answers: { address: string; family: 4 | 6 }[];
  try {
    answers = await resolve(host);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const a of answers ?? []) {
    const addr = normalizeHost(String(a.address));
    if (addr && !out.includes(addr)) out.push(addr);
  }
  return out;
}

/**
 * Validates a webhook URL and returns the parsed URL with the addresses it resolves to
 * now. Throws AppError('invalid_request') when `raw` is missing or blank, and a WebhookUrlError
 * (AppError 'validation_error') when it is not acceptable. Numeric hosts are checked directly,
 * without DNS.
 */
export async function checkWebhookUrl(
  raw: string,
  opts: UrlGuardOptions,
): Promise<{ url: URL; addresses: string[] }> {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new AppError('invalid_request', 'url is required');
  }
  const input = raw.trim();
  if (input.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new WebhookUrlError('too_long', `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new WebhookUrlError('invalid_url', 'url is not a valid absolute URL');
  }
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new WebhookUrlError('too_long', `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  const schemeOk = url.protocol === 'https:' || (opts.allowPrivate && url.protocol === 'http:');
  if (!schemeOk) {
    throw new WebhookUrlError(
      'scheme',
      opts.allowPrivate ? 'url must use https:// or http://' : 'url must use https://',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new WebhookUrlError('userinfo', 'url must not contain user info (user:password@)');
  }
  const host = normalizeHost(url.hostname);
  if (host === '') throw new WebhookUrlError('invalid_url', 'url has no host');

  if (isIpLiteral(host)) {
    if (!opts.allowPrivate && !isPublicAddress(host)) {
      throw new WebhookUrlError('non_public', `url points to a non-public address ${host}`, host);
    }
    return { url, addresses: [host] };
  }

  const addresses = await resolveHost(host, opts.resolve ?? defaultResolver);
  if (addresses.length === 0) {
    throw new WebhookUrlError('unresolvable', `url host ${host} does not resolve`);
  }
  if (!opts.allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a));
    if (bad !== undefined) {
      throw new WebhookUrlError('non_public', `url resolves to a non-public address ${bad}`, bad);
    }
  }
  return { url, addresses };
}

// ---------------------------------------------------------------------------------------------
// Guarded lookup for the connecting socket

/** Error passed to the socket when the lookup refuses a host; message "blocked: private address X". */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_BLOCKED_ADDRESS';
  constructor(readonly address: string) {
    super(`blocked: private address ${address}`);
    this.name = 'BlockedAddressError';
  }
}

function notFoundError(hostname: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  err.code = 'ENOTFOUND';
  err.syscall = 'getaddrinfo';
  (err as NodeJS.ErrnoException & { hostname?: string }).hostname = hostname;
  return err;
}

function wantedFamily(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A `net.LookupFunction` for undici's `connect.lookup` (or `net.connect`): resolves through the
 * resolver, fails with BlockedAddressError ("blocked: private address <addr>") when ANY answer is
 * non-public (unless allowPrivate), and otherwise hands back only addresses it has checked, so
 * the socket connects to exactly what was checked. Honours `options.all` and `options.family`.
 */
export function createGuardedLookup(opts: UrlGuardOptions): LookupFunction {
  const resolve = opts.resolve ?? defaultResolver;
  return (hostname, options, callback) => {
    const host = normalizeHost(hostname);
    const pending: Promise<string[]> = isIpLiteral(host)
      ? Promise.resolve([host])
      : resolveHost(host, resolve);
    pending.then(
      (addresses) => {
        if (addresses.length === 0) return callback(notFoundError(hostname), '', undefined);
        if (!opts.allowPrivate) {
          const bad = addresses.find((a) => !isPublicAddress(a));
          if (bad !== undefined) return callback(new BlockedAddressError(bad), '', undefined);
        }
        const want = wantedFamily(options?.family);
        const usable: LookupAddress[] = addresses
          .map((address) => ({ address, family: familyOf(address) }))
          .filter((a) => want === 0 || a.family === want);
        const first = usable[0];
        if (!first) return callback(notFoundError(hostname), '', undefined);
        if (options?.all) return callback(null, usable);
        return callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), '', undefined),
    );
  };
}
