import net from 'node:net';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors';
import {
  BlockedAddressError,
  WebhookUrlError,
  checkWebhookUrl,
  createGuardedLookup,
  isPublicAddress,
  normalizeHost,
  type Resolver,
} from './url-guard';

/** A resolver answering from a fixed table; unknown names fail like getaddrinfo does. */
function tableResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      throw err;
    }
    return answers.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(fn, { calls });
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a rejection');
}

describe('isPublicAddress', () => {
  // [address, public?, what]
  const table: [string, boolean, string][] = [
    // IPv4: the IANA special-purpose ranges
    ['0.0.0.0', false, 'unspecified'],
    ['0.1.2.3', false, '"this network" 0/8'],
    ['10.0.0.5', false, 'RFC 1918 10/8'],
    ['10.255.255.255', false, 'RFC 1918 10/8 top'],
    ['172.16.0.1', false, 'RFC 1918 172.16/12'],
    ['172.31.255.255', false, 'RFC 1918 172.16/12 top'],
    ['192.168.1.1', false, 'RFC 1918 192.168/16'],
    ['127.0.0.1', false, 'loopback'],
    ['127.255.255.254', false, 'loopback /8'],
    ['169.254.169.254', false, 'link-local, cloud metadata'],
    ['169.254.0.1', false, 'link-local'],
    ['100.64.0.1', false, 'carrier-grade NAT'],
    ['100.127.255.254', false, 'carrier-grade NAT top'],
    ['192.0.0.1', false, 'IETF protocol assignments 192.0.0/24'],
    ['192.0.2.1', false, 'TEST-NET-1'],
    ['198.51.100.7', false, 'TEST-NET-2'],
    ['203.0.113.9', false, 'TEST-NET-3'],
    ['198.18.0.1', false, 'benchmarking 198.18/15'],
    ['198.19.255.255', false, 'benchmarking 198.18/15 top'],
    ['192.88.99.1', false, '6to4 relay anycast (deprecated)'],
    ['224.0.0.1', false, 'multicast'],
    ['239.255.255.250', false, 'multicast (SSDP)'],
    ['240.0.0.1', false, 'reserved class E'],
    ['255.255.255.255', false, 'broadcast'],
    // IPv4: public, including the neighbours of the ranges above
    ['93.184.216.34', true, 'public'],
    ['8.8.8.8', true, 'public'],
    ['1.1.1.1', true, 'public'],
    ['11.0.0.1', true, 'just above 10/8'],
    ['172.15.255.255', true, 'just below 172.16/12'],
    ['172.32.0.1', true, 'just above 172.16/12'],
    ['100.63.255.255', true, 'just below CGN'],
    ['100.128.0.1', true, 'just above CGN'],
    ['198.17.255.255', true, 'just below 198.18/15'],
    ['198.20.0.1', true, 'just above 198.18/15'],
    ['169.253.255.255', true, 'just below link-local'],
    ['223.255.255.254', true, 'just below multicast'],
    // IPv4 numeric spellings
    ['2130706433', false, 'decimal 127.0.0.1'],
    ['0177.0.0.1', false, 'octal 127.0.0.1'],
    ['0x7f.0.0.1', false, 'hex 127.0.0.1'],
    ['0x7f.1', false, 'short hex 127.0.0.1'],
    ['127.1', false, 'short 127.0.0.1'],
    ['0x7f000001', false, 'hex 32-bit 127.0.0.1'],
    ['017700000001', false, 'octal 32-bit 127.0.0.1'],
    ['10.1', false, 'short 10.0.0.1'],
    ['0', false, '0 = 0.0.0.0'],
    ['169.254.43518', false, 'short 169.254.169.254'],
    ['0xa9fea9fe', false, 'hex 169.254.169.254'],
    ['127.0.0.1.', false, 'trailing dot'],
    ['1572395042', true, 'decimal 93.184.216.34'],
    ['0x08080808', true, 'hex 8.8.8.8'],
    // IPv6
    ['::1', false, 'loopback'],
    ['[::1]', false, 'bracketed loopback'],
    ['::', false, 'unspecified'],
    ['fe80::1', false, 'link-local'],
    ['febf::1', false, 'link-local fe80::/10 top'],
    ['fe80::1%eth0', false, 'link-local with zone'],
    ['fc00::1', false, 'unique-local'],
    ['fd12:3456::1', false, 'unique-local fd00::/8'],
    ['fec0::1', false, 'site-local (deprecated)'],
    ['ff02::1', false, 'multicast link scope'],
    ['ff0e::1', false, 'multicast global scope'],
    ['2001:db8::1', false, 'documentation'],
    ['3fff::1', false, 'documentation RFC 9637'],
    ['100::1', false, 'discard-only'],
    ['2001:2::1', false, 'benchmarking'],
    ['5f00::1', false, 'segment routing'],
    ['4000::1', false, 'outside 2000::/3'],
    ['::ffff:127.0.0.1', false, 'IPv4-mapped loopback (dotted)'],
    ['::ffff:7f00:1', false, 'IPv4-mapped loopback (hex)'],
    ['::ffff:10.0.0.5', false, 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', false, 'IPv4-mapped metadata'],
    ['[::ffff:127.0.0.1]', false, 'bracketed IPv4-mapped'],
    ['::127.0.0.1', false, 'IPv4-compatible loopback'],
    ['::7f00:1', false, 'IPv4-compatible loopback (hex)'],
    ['::808:808', false, 'IPv4-compatible (deprecated, never global)'],
    ['::ffff:0:808:808', false, 'IPv4-translated (RFC 6145)'],
    ['64:ff9b::a00:1', false, 'NAT64 of 10.0.0.1'],
    ['64:ff9b::127.0.0.1', false, 'NAT64 of 127.0.0.1'],
    ['64:ff9b:1::808:808', false, 'local-use NAT64 64:ff9b:1::/48'],
    ['2002:7f00:1::', false, '6to4 of 127.0.0.1'],
    ['2002:a00:5::1', false, '6to4 of 10.0.0.5'],
    ['2002:c0a8:101::1', false, '6to4 of 192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false, 'Teredo, client 192.0.2.45 (inverted)'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false, 'Teredo, client 127.0.0.1 (inverted)'],
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', false, 'Teredo, server 10.0.0.1'],
    ['2606:4700::1111', true, 'public'],
    ['2001:4860:4860::8888', true, 'public'],
    ['2a00:1450:4001:80b::200e', true, 'public'],
    ['::ffff:93.184.216.34', true, 'IPv4-mapped public'],
    ['::ffff:808:808', true, 'IPv4-mapped public (hex)'],
    ['64:ff9b::808:808', true, 'NAT64 of 8.8.8.8'],
    ['2002:808:808::1', true, '6to4 of 8.8.8.8'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', true, 'Teredo, client 8.8.8.8'],
    // not addresses at all
    ['example.com', false, 'a name'],
    ['', false, 'empty'],
    ['256.0.0.1', false, 'invalid IPv4'],
    ['1.2.3.4.5', false, 'five parts'],
    ['::ffff::1::2', false, 'invalid IPv6'],
  ];

  it.each(table)('%s → public=%s (%s)', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('rejects the first and last address of every non-unicast range in ipaddr.js', () => {
    type Ranges = Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number] | [ipaddr.IPv4 | ipaddr.IPv6, number][]>;
    for (const cls of [ipaddr.IPv4, ipaddr.IPv6]) {
      const ranges = (cls.prototype as unknown as { SpecialRanges: Ranges }).SpecialRanges;
      expect(Object.keys(ranges).length).toBeGreaterThan(5);
      for (const [name, value] of Object.entries(ranges)) {
        const list = (Array.isArray(value[0]) ? value : [value]) as [ipaddr.IPv4 | ipaddr.IPv6, number][];
        for (const [net, len] of list) {
          const cidr = `${net.toString()}/${len}`;
          const first = (cls as typeof ipaddr.IPv4).networkAddressFromCIDR(cidr).toString();
          const last = (cls as typeof ipaddr.IPv4).broadcastAddressFromCIDR(cidr).toString();
          // 6to4 / Teredo / NAT64 / mapped ranges: first and last embed 0.0.0.0 and 255.255.255.255.
          expect(isPublicAddress(first), `${name} ${first}`).toBe(false);
          expect(isPublicAddress(last), `${name} ${last}`).toBe(false);
        }
      }
    }
  });
});

// The IANA special-purpose registries (IPv4 and IPv6), written out here rather than taken from
// the guard or from ipaddr.js: every address of these ranges is refused, and the address just
// outside each end is accepted unless it lies in another refused range (or outside 2000::/3, the
// only IPv6 global unicast space). Ranges whose addresses embed an IPv4 address (::ffff:0:0/96,
// 64:ff9b::/96, 2002::/16, Teredo 2001::/32) are judged by that address and covered above.
const REFUSED_RANGES: [string, string][] = [
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'RFC 1918'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'RFC 1918'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'TEST-NET-1'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'RFC 1918'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'TEST-NET-2'],
  ['203.0.113.0/24', 'TEST-NET-3'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0:0/96', 'IPv4-translated'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignments (its first address is Teredo of 0.0.0.0)'],
  ['2001:db8::/32', 'documentation'],
  ['2620:4f:8000::/48', 'AS112'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];
const GLOBAL_V6 = '2000::/3';
const EMBEDDING_V6 = ['2001::/32', '2002::/16'];

/** A CIDR as [first, last] numbers, with the address family's width. */
function bounds(cidr: string): { first: bigint; last: bigint; bits: number } {
  const [ip, len] = ipaddr.parseCIDR(cidr);
  const bits = ip.kind() === 'ipv4' ? 32 : 128;
  const value = ip.toByteArray().reduce((n, b) => (n << 8n) | BigInt(b), 0n);
  const size = 1n << BigInt(bits - len);
  return { first: value, last: value + size - 1n, bits };
}

function toAddress(n: bigint, bits: number): string {
  const bytes = Array.from({ length: bits / 8 }, (_, i) => Number((n >> BigInt(bits - 8 * (i + 1))) & 0xffn));
  return ipaddr.fromByteArray(bytes).toString();
}

const inRange = (n: bigint, bits: number, cidr: string) => {
  const b = bounds(cidr);
  return b.bits === bits && n >= b.first && n <= b.last;
};

/** What the registries say of an address just outside a refused range: public, refused, or judged by its embedded IPv4. */
function neighbourVerdict(n: bigint, bits: number): boolean | 'embedded' {
  if (REFUSED_RANGES.some(([cidr]) => inRange(n, bits, cidr))) return false;
  if (bits === 32) return true;
  if (EMBEDDING_V6.some((cidr) => inRange(n, bits, cidr))) return 'embedded';
  return inRange(n, bits, GLOBAL_V6);
}

describe('every special-purpose range, end to end through the guard', () => {
  const resolve = tableResolver({});
  const urlFor = (address: string) => `https://${address.includes(':') ? `[${address}]` : address}/hook`;

  async function refused(address: string) {
    expect(isPublicAddress(address), address).toBe(false);
    const err = await rejection(checkWebhookUrl(urlFor(address), { allowPrivate: false, resolve }));
    expect(err.message).toBe(`url points to a non-public address ${normalizeHost(address)}`);
    const guarded = await new Promise<Error | null>((done) =>
      createGuardedLookup({
        allowPrivate: false,
        resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }],
      })('hooks.example.com', {}, (e) => done(e)),
    );
    expect(guarded, address).toBeInstanceOf(BlockedAddressError);
  }

  async function accepted(address: string) {
    expect(isPublicAddress(address), address).toBe(true);
    await expect(checkWebhookUrl(urlFor(address), { allowPrivate: false, resolve })).resolves.toMatchObject({
      addresses: [normalizeHost(address)],
    });
  }

  it.each(REFUSED_RANGES)(
    '%s (%s): first, middle and last refused; the neighbours outside accepted when public',
    async (cidr) => {
      const { first, last, bits } = bounds(cidr);
      for (const n of [first, first + (last - first) / 2n, last]) await refused(toAddress(n, bits));
      const max = (1n << BigInt(bits)) - 1n;
      for (const n of [first - 1n, last + 1n]) {
        if (n < 0n || n > max) continue;
        const verdict = neighbourVerdict(n, bits);
        if (verdict === true) await accepted(toAddress(n, bits));
        else if (verdict === false) await refused(toAddress(n, bits));
      }
    },
  );
});

describe('normalizeHost', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0X7F.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::FFFF:127.0.0.1]', '::ffff:7f00:1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['Example.COM', 'example.com'],
    ['1.2.3.4.5', '1.2.3.4.5'],
    ['08.0.0.1', '08.0.0.1'], // not a valid octal number: left as a name
  ])('%s → %s', (input, expected) => {
    expect(normalizeHost(input)).toBe(expected);
  });

  it('the WHATWG URL parser already normalises numeric http(s) hosts', () => {
    expect(new URL('https://0x7f.1/').hostname).toBe('127.0.0.1');
    expect(new URL('https://2130706433/').hostname).toBe('127.0.0.1');
    expect(new URL('https://0177.0.0.1/').hostname).toBe('127.0.0.1');
    expect(new URL('https://127.1/').hostname).toBe('127.0.0.1');
    expect(new URL('https://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });
});

describe('checkWebhookUrl', () => {
  const resolve = tableResolver({
    'hooks.example.com': ['93.184.216.34'],
    'v6.example.com': ['2606:4700::1111'],
    'dual.example.com': ['93.184.216.34', '2606:4700::1111'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
    localhost: ['127.0.0.1', '::1'],
    'mapped.example.com': ['::ffff:10.0.0.5'],
    'metadata.example.com': ['169.254.169.254'],
    'empty.example.com': [],
  });
  const strict = { allowPrivate: false, resolve };
  const lax = { allowPrivate: true, resolve };

  it.each([undefined, null, 42, {}, '', '   '])('missing or blank url %j → invalid_request', async (raw) => {
    const err = await rejection(checkWebhookUrl(raw as unknown as string, strict));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toBe('url is required');
  });

  it.each<[string, string, boolean?]>([
    ['not a url', 'url is not a valid absolute URL'],
    ['hooks.example.com/webhook', 'url is not a valid absolute URL'],
    ['https://', 'url is not a valid absolute URL'],
    ['https://1.2.3.999/', 'url is not a valid absolute URL'],
    ['http://hooks.example.com/webhook', 'url must use https://'],
    ['ftp://hooks.example.com/webhook', 'url must use https://'],
    ['ftp://hooks.example.com/webhook', 'url must use https:// or http://', true],
    ['HTTP://hooks.example.com/', 'url must use https://'],
    ['https://user:secret@hooks.example.com/webhook', 'url must not contain user info (user:password@)'],
    ['https://user@hooks.example.com/webhook', 'url must not contain user info (user:password@)'],
    ['https://:secret@hooks.example.com/webhook', 'url must not contain user info (user:password@)'],
    ['https://nowhere.example.com/', 'url host nowhere.example.com does not resolve'],
    ['https://empty.example.com/', 'url host empty.example.com does not resolve'],
    ['https://internal.example.com/hook', 'url resolves to a non-public address 10.0.0.5'],
    ['https://mixed.example.com/hook', 'url resolves to a non-public address 10.0.0.5'],
    ['https://localhost/hook', 'url resolves to a non-public address 127.0.0.1'],
    ['https://mapped.example.com/hook', 'url resolves to a non-public address ::ffff:a00:5'],
    ['https://metadata.example.com/latest', 'url resolves to a non-public address 169.254.169.254'],
    ['https://169.254.169.254/latest/meta-data', 'url points to a non-public address 169.254.169.254'],
    ['https://0x7f.1/', 'url points to a non-public address 127.0.0.1'],
    ['https://2130706433/', 'url points to a non-public address 127.0.0.1'],
    ['https://0177.0.0.1:8443/', 'url points to a non-public address 127.0.0.1'],
    ['https://10.1/', 'url points to a non-public address 10.0.0.1'],
    ['https://[::1]/', 'url points to a non-public address ::1'],
    ['https://[::ffff:127.0.0.1]/', 'url points to a non-public address ::ffff:7f00:1'],
    ['https://[64:ff9b::a00:1]/', 'url points to a non-public address 64:ff9b::a00:1'],
    ['https://[2002:7f00:1::]/', 'url points to a non-public address 2002:7f00:1::'],
    ['https://[fe80::1]/', 'url points to a non-public address fe80::1'],
    ['https://[fc00::1]/', 'url points to a non-public address fc00::1'],
    ['https://[ff02::1]/', 'url points to a non-public address ff02::1'],
    ['https://[::]/', 'url points to a non-public address ::'],
  ])('%s → %s', async (raw, message, allowPrivate = false) => {
    const err = await rejection(checkWebhookUrl(raw, { allowPrivate, resolve }));
    expect(err).toBeInstanceOf(WebhookUrlError);
    expect(err.code).toBe('validation_error');
    expect(err.message).toBe(message);
    expect(err.message.startsWith('url ')).toBe(true);
  });

  it('rejects a url longer than 2048 characters and accepts one of exactly 2048', async () => {
    const base = 'https://hooks.example.com/';
    const at2048 = base + 'a'.repeat(2048 - base.length);
    expect(at2048).toHaveLength(2048);
    await expect(checkWebhookUrl(at2048, strict)).resolves.toMatchObject({ addresses: ['93.184.216.34'] });
    const err = await rejection(checkWebhookUrl(`${at2048}a`, strict));
    expect(err.code).toBe('validation_error');
    expect(err.message).toBe('url is longer than 2048 characters');
  });

  it('a resolver that throws ENOTFOUND or returns nothing means "does not resolve"', async () => {
    const throwing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' });
    };
    const empty: Resolver = async () => [];
    for (const r of [throwing, empty]) {
      const err = await rejection(
        checkWebhookUrl('https://hooks.example.com/', { allowPrivate: true, resolve: r }),
      );
      expect(err.code).toBe('validation_error');
      expect(err.message).toMatch(/does not resolve$/);
    }
  });

  it.each([
    ['https://hooks.example.com/webhook?x=1', ['93.184.216.34']],
    ['https://v6.example.com/webhook', ['2606:4700::1111']],
    ['https://dual.example.com/webhook', ['93.184.216.34', '2606:4700::1111']],
    ['https://HOOKS.example.com:8443/webhook', ['93.184.216.34']],
  ])('accepts %s', async (raw, addresses) => {
    const { url, addresses: got } = await checkWebhookUrl(raw, strict);
    expect(url.protocol).toBe('https:');
    expect(got).toEqual(addresses);
  });

  it('checks numeric hosts directly, without DNS', async () => {
    const spy = vi.fn(resolve);
    await expect(
      checkWebhookUrl('https://93.184.216.34/hook', { allowPrivate: false, resolve: spy }),
    ).resolves.toMatchObject({
      addresses: ['93.184.216.34'],
    });
    await expect(
      checkWebhookUrl('https://[2606:4700::1111]/hook', { allowPrivate: false, resolve: spy }),
    ).resolves.toMatchObject({
      addresses: ['2606:4700::1111'],
    });
    await expect(
      checkWebhookUrl('https://1572395042/hook', { allowPrivate: false, resolve: spy }),
    ).resolves.toMatchObject({
      addresses: ['93.184.216.34'],
    });
    await rejection(checkWebhookUrl('https://127.0.0.1/hook', { allowPrivate: false, resolve: spy }));
    expect(spy).not.toHaveBeenCalled();
  });

  it('trims surrounding whitespace', async () => {
    const { url } = await checkWebhookUrl('  https://hooks.example.com/x  ', strict);
    expect(url.href).toBe('https://hooks.example.com/x');
  });

  it('allowPrivate allows http:// and private or loopback targets, but still needs a resolving name', async () => {
    await expect(checkWebhookUrl('http://localhost:3000/hook', lax)).resolves.toMatchObject({
      addresses: ['127.0.0.1', '::1'],
    });
    await expect(checkWebhookUrl('http://127.0.0.1:3000/hook', lax)).resolves.toMatchObject({
      addresses: ['127.0.0.1'],
    });
    await expect(checkWebhookUrl('https://internal.example.com/', lax)).resolves.toMatchObject({
      addresses: ['10.0.0.5'],
    });
    const err = await rejection(checkWebhookUrl('http://nowhere.example.com/', lax));
    expect(err.message).toBe('url host nowhere.example.com does not resolve');
    const err2 = await rejection(checkWebhookUrl('http://u:p@localhost/', lax));
    expect(err2.message).toMatch(/user info/);
  });
});

describe('createGuardedLookup', () => {
  type Outcome = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };
  function lookup(
    fn: net.LookupFunction,
    hostname: string,
    options: Parameters<net.LookupFunction>[1],
  ): Promise<Outcome> {
    return new Promise((done) =>
      fn(hostname, options, (err, address, family) => done({ err, address, family })),
    );
  }
  const resolve = tableResolver({
    'hooks.example.com': ['93.184.216.34', '2606:4700::1111'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['2606:4700::1111', '10.0.0.5'],
    'receiver.test': ['127.0.0.1'],
  });

  it('hands back the first checked address (all: false)', async () => {
    const out = await lookup(createGuardedLookup({ allowPrivate: false, resolve }), 'hooks.example.com', {});
    expect(out).toEqual({ err: null, address: '93.184.216.34', family: 4 });
  });

  it('hands back every checked address (all: true)', async () => {
    const out = await lookup(createGuardedLookup({ allowPrivate: false, resolve }), 'hooks.example.com', {
      all: true,
    });
    expect(out.err).toBeNull();
    expect(out.address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('honours options.family', async () => {
    const fn = createGuardedLookup({ allowPrivate: false, resolve });
    expect(await lookup(fn, 'hooks.example.com', { family: 6 })).toEqual({
      err: null,
      address: '2606:4700::1111',
      family: 6,
    });
    expect((await lookup(fn, 'hooks.example.com', { family: 4, all: true })).address).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it.each([
    ['internal.example.com', '10.0.0.5', false],
    ['internal.example.com', '10.0.0.5', true],
    ['mixed.example.com', '10.0.0.5', false],
    ['mixed.example.com', '10.0.0.5', true],
    ['receiver.test', '127.0.0.1', false],
    ['0x7f.1', '127.0.0.1', false],
    ['::ffff:127.0.0.1', '::ffff:7f00:1', true],
  ])('blocks %s (%s), all=%s', async (host, address, all) => {
    const out = await lookup(createGuardedLookup({ allowPrivate: false, resolve }), host, { all });
    expect(out.err).toBeInstanceOf(BlockedAddressError);
    expect(out.err?.message).toBe(`blocked: private address ${address}`);
  });

  it('a name that does not resolve fails with ENOTFOUND', async () => {
    const out = await lookup(createGuardedLookup({ allowPrivate: false, resolve }), 'nowhere.example.com', {
      all: true,
    });
    expect(out.err?.code).toBe('ENOTFOUND');
  });

  it('allowPrivate lets private addresses through', async () => {
    const out = await lookup(createGuardedLookup({ allowPrivate: true, resolve }), 'receiver.test', {});
    expect(out).toEqual({ err: null, address: '127.0.0.1', family: 4 });
  });

  describe('with a real socket', () => {
    let server: net.Server | undefined;
    afterEach(async () => {
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      server = undefined;
    });

    /** A server counting accepted connections; `accepted(n)` resolves once it has accepted n. */
    async function listen(): Promise<{
      port: number;
      connections: () => number;
      accepted: (n: number) => Promise<void>;
    }> {
      let count = 0;
      const waiting: { n: number; done: () => void }[] = [];
      server = net.createServer((s) => {
        count++;
        s.end();
        for (const w of waiting.filter((w) => w.n <= count)) w.done();
      });
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
      return {
        port: (server.address() as net.AddressInfo).port,
        connections: () => count,
        accepted: (n) => (count >= n ? Promise.resolve() : new Promise((done) => waiting.push({ n, done }))),
      };
    }

    function connect(
      port: number,
      lookupFn: net.LookupFunction,
      autoSelectFamily: boolean,
    ): Promise<Error | null> {
      return new Promise((done) => {
        const socket = net.connect({ host: 'receiver.test', port, lookup: lookupFn, autoSelectFamily });
        socket.on('connect', () => {
          socket.destroy();
          done(null);
        });
        socket.on('error', (err) => done(err));
      });
    }

    it.each([false, true])(
      'net.connect (autoSelectFamily=%s) is refused before any connection',
      async (autoSelectFamily) => {
        const { port, connections, accepted } = await listen();
        const err = await connect(
          port,
          createGuardedLookup({ allowPrivate: false, resolve }),
          autoSelectFamily,
        );
        expect(err?.message).toBe('blocked: private address 127.0.0.1');
        expect(connections()).toBe(0);
        // A witness connection afterwards: once the server has accepted it, any connection the
        // refused socket had opened (earlier, so accepted first) would have been counted too.
        expect(
          await connect(port, createGuardedLookup({ allowPrivate: true, resolve }), autoSelectFamily),
        ).toBeNull();
        await accepted(1);
        expect(connections()).toBe(1);
      },
    );

    it.each([false, true])(
      'net.connect (autoSelectFamily=%s) connects when allowed',
      async (autoSelectFamily) => {
        const { port, connections, accepted } = await listen();
        const err = await connect(
          port,
          createGuardedLookup({ allowPrivate: true, resolve }),
          autoSelectFamily,
        );
        expect(err).toBeNull();
        await accepted(1);
        expect(connections()).toBe(1);
      },
    );
  });
});
