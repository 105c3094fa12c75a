import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from '../env';
import { clientAddress, installForwardedForPeer } from './client-address';

describe('TRUST_PROXY: X-Forwarded-For is trusted only when configured', () => {
  it.each([
    [{}, 0],
    [{ TRUST_PROXY: '' }, 0],
    [{ TRUST_PROXY: '2' }, 2],
    [{ TRUST_PROXY: 'true' }, 1],
    [{ TRUST_PROXY: 'false' }, 0],
    [
      {
        VERCEL_ENV: 'production',
        CRON_SECRET: 's',
        SECRETS_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        SMTP_URL: 'smtp://mail.example.com',
      },
      1,
    ], // Vercel's edge sets the header
    [{ VERCEL_ENV: 'preview', TRUST_PROXY: '0' }, 0],
  ])('%j → %d trusted hops', (source, hops) => {
    expect(parseEnv(source).TRUST_PROXY).toBe(hops);
  });

  it('anything else refuses to start, saying what is expected', () => {
    expect(() => parseEnv({ TRUST_PROXY: 'yes please' })).toThrow(EnvError);
    expect(() => parseEnv({ TRUST_PROXY: '-1' })).toThrow(
      /TRUST_PROXY must be the number of proxies in front of the server/,
    );
  });
});

describe('clientAddress: who is asking, behind TRUST_PROXY proxies', () => {
  it.each([
    // [X-Forwarded-For as the server finally sees it, trusted hops, client]
    ['203.0.113.9', 0, '203.0.113.9'],
    ['6.6.6.6, 203.0.113.9', 0, '203.0.113.9'], // the client's own entry is ignored
    ['6.6.6.6, 198.51.100.4, 10.0.0.2', 1, '198.51.100.4'], // one proxy (10.0.0.2) in front
    ['198.51.100.4, 10.0.0.3, 10.0.0.2', 2, '198.51.100.4'],
    ['10.0.0.2', 3, '10.0.0.2'], // fewer hops than configured: the first there is
    ['::ffff:203.0.113.9', 0, '203.0.113.9'],
    ['[2001:db8:1:2:aaaa::1]:443', 0, '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', 0, '2001:db8:1:2::/64'], // one /64, one client
    ['203.0.113.9:51234', 0, '203.0.113.9'],
    ['not-an-address', 0, 'unparseable'],
    ['', 0, null],
  ] as const)('%s with %d trusted hops is %s', (forwarded, hops, expected) => {
    expect(clientAddress(new Headers(forwarded ? { 'x-forwarded-for': forwarded } : {}), hops)).toBe(
      expected,
    );
    expect(clientAddress(forwarded ? { 'x-forwarded-for': forwarded } : {}, hops)).toBe(expected);
  });
});

describe('installForwardedForPeer: a forged X-Forwarded-For does not pick the address', () => {
  async function seenBy(hops: number, sent: Record<string, string>) {
    const uninstall = installForwardedForPeer(hops);
    const server = http.createServer((req, res) => res.end(JSON.stringify(req.headers)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/`, {
        headers: sent,
      });
      return (await res.json()) as Record<string, string | undefined>;
    } finally {
      server.close();
      uninstall();
    }
  }

  it("with no trusted proxy the socket's peer replaces the client's X-Forwarded-For", async () => {
    const headers = await seenBy(0, { 'x-forwarded-for': '6.6.6.6' });
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(clientAddress(headers as Record<string, string>, 0)).toBe('127.0.0.1');
    expect((await seenBy(0, {}))['x-forwarded-for']).toBe('127.0.0.1');
  });

  it("behind a trusted proxy the peer is appended, and the proxy's entry names the client", async () => {
    const headers = await seenBy(1, {
      'x-forwarded-for': '6.6.6.6, 198.51.100.4',
      'x-forwarded-proto': 'https',
    });
    expect(headers['x-forwarded-for']).toBe('6.6.6.6, 198.51.100.4, 127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('https');
    expect(clientAddress(headers as Record<string, string>, 1)).toBe('198.51.100.4');
  });

  it('undone, servers see the request as sent', async () => {
    installForwardedForPeer(0)();
    const server = http.createServer((req, res) => res.end(req.headers['x-forwarded-for'] ?? ''));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/`, {
      headers: { 'x-forwarded-for': '6.6.6.6' },
    });
    server.close();
    expect(await res.text()).toBe('6.6.6.6');
  });
});
