import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookSender, type WebhookSender } from './http-sender';
import { checkWebhookUrl, type Resolver } from './url-guard';

type Handler = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void;

interface Receiver {
  port: number;
  url: (p?: string) => string;
  hits: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  /** The client ports of the connections accepted, in the order they were accepted. */
  peers: number[];
  server: http.Server;
}

const servers: http.Server[] = [];
const senders: WebhookSender[] = [];

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

async function receiver(handler: Handler, server: http.Server = http.createServer()): Promise<Receiver> {
  const hits: Receiver['hits'] = [];
  const peers: number[] = [];
  server.on('connection', (socket: net.Socket) => peers.push(socket.remotePort ?? 0));
  server.on('secureConnection', () => {});
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.on('error', () => {});
      handler(req, body, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const scheme = server instanceof https.Server ? 'https' : 'http';
  return {
    port,
    url: (p = '/hook') => `${scheme}://127.0.0.1:${port}${p}`,
    hits,
    peers,
    server,
  };
}

/**
 * How many connections the sender `s` made to the receiver, counted once no more can come: the
 * sender is closed (which waits for every request it dispatched), then the test opens a probe
 * connection and waits for the receiver to accept it. A listening socket accepts connections in
 * the order they arrive, so every connection the sender opened was accepted ahead of the probe:
 * the answer is how many are ahead of it. "No connection" is then a fact, not a short sleep's guess.
 */
async function connectionsFrom(s: WebhookSender, rx: Receiver): Promise<number> {
  await s.close();
  const probe = net.connect(rx.port, '127.0.0.1');
  try {
    await new Promise<void>((resolve, reject) => probe.once('connect', resolve).once('error', reject));
    const port = probe.localPort;
    return await vi.waitFor(
      () => {
        const at = rx.peers.indexOf(port ?? -1);
        if (at === -1) throw new Error('the receiver has not accepted the probe connection yet');
        return at;
      },
      { timeout: 5_000, interval: 10 },
    );
  } finally {
    probe.destroy();
  }
}

function sender(opts: Parameters<typeof createWebhookSender>[0]): WebhookSender {
  const s = createWebhookSender(opts);
  senders.push(s);
  return s;
}

/** A resolver whose answers for a name change from call to call (the last answer repeats). */
function sequenceResolver(answers: string[][]): Resolver & { calls: number } {
  const r = Object.assign(
    async () => {
      const list = answers[Math.min(r.calls, answers.length - 1)] ?? [];
      r.calls++;
      return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
    },
    { calls: 0 },
  );
  return r;
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const body = JSON.stringify({
  event: 'meeting.completed',
  created_at: '2025-01-01T00:00:00.000Z',
  data: { id: 'x', title: 'Ünïcode ✓' },
});
const headers = {
  'X-Service-Event': 'meeting.completed',
  'X-Service-Signature': 't=1700000000,v1=abc123',
  'X-Service-Timestamp': '1700000000',
  'X-Service-Delivery': 'd-1',
};

describe('createWebhookSender against real receivers (allowPrivate: true)', () => {
  it('200: success, headers and body received exactly', async () => {
    const rx = await receiver((_req, _body, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok thanks'),
    );
    const s = sender({ timeoutMs: 2000, allowPrivate: true, userAgent: 'TestAgent/1' });
    const result = await s.send({ url: rx.url('/hook?x=1'), headers, body });

    expect(result).toMatchObject({ statusCode: 200, success: true, error: null, responseBody: 'ok thanks' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.requestHeaders).toEqual({
      ...headers,
      'Content-Type': 'application/json',
      'User-Agent': 'TestAgent/1',
    });

    expect(rx.hits).toHaveLength(1);
    const hit = rx.hits[0]!;
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe('/hook?x=1');
    expect(hit.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    for (const [name, value] of Object.entries(result.requestHeaders)) {
      expect(hit.headers[name.toLowerCase()]).toBe(value);
    }
    // The count the blocked-URL tests below expect to be 0 does see a connection that was made.
    expect(await connectionsFrom(s, rx)).toBe(1);
  });

  it('closing twice resolves both times, and a send after the close fails without a request', async () => {
    const rx = await receiver((_req, _body, res) => res.writeHead(200).end());
    const s = sender({ timeoutMs: 2000, allowPrivate: true });
    expect((await s.send({ url: rx.url(), headers, body })).success).toBe(true);
    // Each close rejects if the agent is closed twice: awaited, one failure fails the test.
    await Promise.all([s.close(), s.close()]);
    await s.close();
    expect(await s.send({ url: rx.url(), headers, body })).toMatchObject({
      success: false,
      error: 'sender closed',
    });
    expect(rx.hits).toHaveLength(1);
  });

  it('our Content-Type and User-Agent replace the caller’s, whatever their case', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(204).end());
    const s = sender({ timeoutMs: 2000, allowPrivate: true });
    const result = await s.send({
      url: rx.url(),
      headers: { 'content-type': 'text/plain', 'user-agent': 'x', 'X-A': '1' },
      body: '{}',
    });
    expect(result).toMatchObject({ statusCode: 204, success: true, responseBody: '' });
    expect(result.requestHeaders).toEqual({
      'X-A': '1',
      'Content-Type': 'application/json',
      'User-Agent': 'MeetingNotes-Webhooks/1.0',
    });
    expect(rx.hits[0]!.headers['content-type']).toBe('application/json');
    expect(rx.hits[0]!.headers['user-agent']).toBe('MeetingNotes-Webhooks/1.0');
  });

  it('500: failure with the status code', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(500).end('boom'));
    const result = await sender({ timeoutMs: 2000, allowPrivate: true }).send({
      url: rx.url(),
      headers,
      body,
    });
    expect(result).toMatchObject({ statusCode: 500, success: false, error: null, responseBody: 'boom' });
  });

  it('a receiver that never answers: "timeout"', async () => {
    const rx = await receiver(() => {});
    const result = await sender({ timeoutMs: 300, allowPrivate: true }).send({
      url: rx.url(),
      headers,
      body,
    });
    expect(result).toMatchObject({ statusCode: null, success: false, error: 'timeout', responseBody: null });
    expect(rx.hits).toHaveLength(1);
  });

  it('headers in time but a body that never ends: the status counts, the partial body is kept', async () => {
    const rx = await receiver((_req, _b, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const result = await sender({ timeoutMs: 300, allowPrivate: true }).send({
      url: rx.url(),
      headers,
      body,
    });
    expect(result).toMatchObject({ statusCode: 200, success: true, error: null, responseBody: 'partial' });
  });

  it.each([301, 302, 307, 308])('%i redirect is not followed', async (status) => {
    const rx = await receiver((req, _b, res) => {
      if (req.url === '/target') return res.writeHead(200).end('target');
      res.writeHead(status, { location: `/target` }).end();
    });
    const s = sender({ timeoutMs: 2000, allowPrivate: true });
    const result = await s.send({ url: rx.url('/hook'), headers, body });
    expect(result).toMatchObject({
      statusCode: status,
      success: false,
      error: `redirect (${status}) not followed`,
    });
    // Closing waits for every request the sender made to be answered, and the receiver records a
    // request before it answers: a followed redirect would be in `hits` by now.
    await s.close();
    expect(rx.hits.map((h) => h.url)).toEqual(['/hook']);
  });

  it('a 10 MB response body: at most 4096 bytes kept, and the call returns', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'a');
    const rx = await receiver((_req, _b, res) => {
      res.writeHead(200, { 'content-length': String(big.length) }).end(big);
    });
    const result = await sender({ timeoutMs: 5000, allowPrivate: true }).send({
      url: rx.url(),
      headers,
      body,
    });
    expect(result.success).toBe(true);
    expect(result.statusCode).toBe(200);
    expect(Buffer.byteLength(result.responseBody ?? '', 'utf8')).toBe(4096);
    expect(result.responseBody).toBe('a'.repeat(4096));
  });

  it('a multi-byte character cut at the 4 KiB boundary is dropped, not mangled', async () => {
    const text = 'a'.repeat(4095) + 'é'.repeat(10);
    const rx = await receiver((_req, _b, res) => res.writeHead(200).end(text));
    const result = await sender({ timeoutMs: 2000, allowPrivate: true }).send({
      url: rx.url(),
      headers,
      body,
    });
    expect(result.responseBody).toBe('a'.repeat(4095));
  });

  it('connection refused', async () => {
    const port = await closedPort();
    const result = await sender({ timeoutMs: 2000, allowPrivate: true }).send({
      url: `http://127.0.0.1:${port}/hook`,
      headers,
      body,
    });
    expect(result).toMatchObject({
      statusCode: null,
      success: false,
      error: 'connection refused',
      responseBody: null,
    });
  });

  it('connection refused through the guarded lookup (a name, all addresses tried)', async () => {
    const port = await closedPort();
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await sender({ timeoutMs: 2000, allowPrivate: true, resolve }).send({
      url: `http://receiver.test:${port}/`,
      headers,
      body,
    });
    expect(result.error).toBe('connection refused');
  });

  it('a name is connected through the injected resolver', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(202).end());
    const resolve = sequenceResolver([['127.0.0.1']]);
    const result = await sender({ timeoutMs: 2000, allowPrivate: true, resolve }).send({
      url: `http://receiver.test:${rx.port}/hook`,
      headers,
      body,
    });
    expect(result).toMatchObject({ statusCode: 202, success: true });
    expect(rx.hits[0]!.headers.host).toBe(`receiver.test:${rx.port}`);
    expect(resolve.calls).toBe(2); // the send-time check, then the connect-time lookup
  });

  it('bounded concurrency: maxConcurrent 2, 6 slow requests → never more than 2 at once', async () => {
    let inFlight = 0;
    let maxSeen = 0;
    const rx = await receiver((_req, _b, res) => {
      inFlight++;
      maxSeen = Math.max(maxSeen, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200).end('ok');
      }, 150);
    });
    const s = sender({ timeoutMs: 5000, allowPrivate: true, maxConcurrent: 2 });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => s.send({ url: rx.url(`/hook/${i}`), headers, body })),
    );
    expect(results.every((r) => r.success)).toBe(true);
    expect(rx.hits).toHaveLength(6);
    expect(maxSeen).toBe(2);
  });

  it('a URL that fails the send-time check is a failed attempt and nothing is sent', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(200).end());
    const s = sender({ timeoutMs: 2000, allowPrivate: true });
    const bad = await s.send({ url: `ftp://127.0.0.1:${rx.port}/`, headers, body });
    expect(bad).toMatchObject({
      statusCode: null,
      success: false,
      error: 'url must use https:// or http://',
    });
    const userinfo = await s.send({ url: `http://u:p@127.0.0.1:${rx.port}/`, headers, body });
    expect(userinfo.error).toBe('url must not contain user info (user:password@)');
    expect(await connectionsFrom(s, rx)).toBe(0);
  });

  it('a name that does not resolve: "dns: name does not resolve"', async () => {
    const resolve: Resolver = async () => [];
    const result = await sender({ timeoutMs: 2000, allowPrivate: true, resolve }).send({
      url: 'https://nowhere.test/',
      headers,
      body,
    });
    expect(result).toMatchObject({ statusCode: null, success: false, error: 'dns: name does not resolve' });
  });

  it('after close(), send() is a failed attempt', async () => {
    const s = createWebhookSender({ timeoutMs: 2000, allowPrivate: true });
    await s.close();
    const result = await s.send({ url: 'http://127.0.0.1:1/', headers, body });
    expect(result).toMatchObject({ success: false, error: 'sender closed' });
  });

  // Needs the openssl binary to make a certificate; .ci/run installs it (a missing tool fails, never skips).
  it('an untrusted certificate: "tls: <reason>"', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'webhook-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=localhost',
          '-days',
          '1',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const server = https.createServer({
        key: readFileSync(path.join(dir, 'key.pem')),
        cert: readFileSync(path.join(dir, 'cert.pem')),
      });
      const rx = await receiver(
        (_req, _b, res) => res.writeHead(200).end(),
        server as unknown as http.Server,
      );
      const result = await sender({ timeoutMs: 2000, allowPrivate: true }).send({
        url: rx.url(),
        headers,
        body,
      });
      expect(result.success).toBe(false);
      expect(result.statusCode).toBeNull();
      expect(result.error).toMatch(/^tls: /);
      expect(rx.hits).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createWebhookSender with allowPrivate: false and an injected resolver', () => {
  it('a name resolving to 127.0.0.1 is blocked and no connection is made', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(200).end());
    const resolve = sequenceResolver([['127.0.0.1']]);
    const s = sender({ timeoutMs: 2000, allowPrivate: false, resolve });
    const result = await s.send({ url: `https://receiver.test:${rx.port}/hook`, headers, body });
    expect(result).toMatchObject({
      statusCode: null,
      success: false,
      error: 'blocked: private address 127.0.0.1',
      responseBody: null,
    });
    expect(await connectionsFrom(s, rx)).toBe(0);
  });

  it('a numeric private URL is blocked without DNS and without a connection', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(200).end());
    const resolve = sequenceResolver([['93.184.216.34']]);
    const s = sender({ timeoutMs: 2000, allowPrivate: false, resolve });
    const result = await s.send({ url: `https://127.0.0.1:${rx.port}/`, headers, body });
    expect(result.error).toBe('blocked: private address 127.0.0.1');
    expect(resolve.calls).toBe(0);
    expect(await connectionsFrom(s, rx)).toBe(0);
  });

  it('DNS that changes from public (registration) to private (send time) is blocked at send time', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(200).end());
    const resolve = sequenceResolver([['93.184.216.34'], ['127.0.0.1']]);
    const url = `https://rebind.test:${rx.port}/hook`;
    await expect(checkWebhookUrl(url, { allowPrivate: false, resolve })).resolves.toMatchObject({
      addresses: ['93.184.216.34'],
    });
    const s = sender({ timeoutMs: 2000, allowPrivate: false, resolve });
    const result = await s.send({ url, headers, body });
    expect(result).toMatchObject({ success: false, error: 'blocked: private address 127.0.0.1' });
    expect(await connectionsFrom(s, rx)).toBe(0);
  });

  it('DNS that changes between the send-time check and connect is blocked by the guarded lookup', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(200).end());
    // call 1: the send-time check sees a public address; call 2: the socket's lookup sees loopback.
    const resolve = sequenceResolver([['93.184.216.34'], ['127.0.0.1']]);
    const s = sender({ timeoutMs: 2000, allowPrivate: false, resolve });
    const result = await s.send({ url: `https://rebind.test:${rx.port}/hook`, headers, body });
    expect(resolve.calls).toBe(2);
    expect(result).toMatchObject({
      statusCode: null,
      success: false,
      error: 'blocked: private address 127.0.0.1',
    });
    expect(await connectionsFrom(s, rx)).toBe(0);
  });

  it('a name with one public and one private address is blocked', async () => {
    const rx = await receiver((_req, _b, res) => res.writeHead(200).end());
    const resolve = sequenceResolver([['93.184.216.34', '127.0.0.1']]);
    const s = sender({ timeoutMs: 2000, allowPrivate: false, resolve });
    const result = await s.send({ url: `https://mixed.test:${rx.port}/hook`, headers, body });
    expect(result).toMatchObject({ success: false, error: 'blocked: private address 127.0.0.1' });
    expect(await connectionsFrom(s, rx)).toBe(0);
  });

  it('http:// is refused when private targets are not allowed', async () => {
    const resolve = sequenceResolver([['93.184.216.34']]);
    const result = await sender({ timeoutMs: 2000, allowPrivate: false, resolve }).send({
      url: 'http://hooks.test/',
      headers,
      body,
    });
    expect(result).toMatchObject({ success: false, error: 'url must use https://' });
    expect(resolve.calls).toBe(0);
  });
});
