import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, test } from './fixtures';
import { processTree } from '../scripts/process-tree';
import { uploadUntilAnswered } from '../test/support/stream-upload';
import { STATE_DIR } from './state';

// The settings app's protections, against `npm start` (next build + the production server):
// anonymous requests cannot exhaust the server's memory, a forged X-Forwarded-For does not get
// around the sign-in throttle, and callbackUrl never leads off the site.

const MB = 1024 * 1024;

/** The server's processes: the one e2e/start-server.ts started and all its descendants. */
function serverProcesses(): number[] {
  return processTree(Number(fs.readFileSync(path.join(STATE_DIR, 'server.pid'), 'utf8')));
}

/** Resident memory of the server's processes together, in bytes. */
function serverRss(): number {
  let total = 0;
  for (const pid of serverProcesses()) {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      /* ended meanwhile */
    }
  }
  return total;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request from a chosen local address (127.0.0.2 is loopback too), which fetch cannot do. */
function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        ...(opts.localAddress && { localAddress: opts.localAddress }),
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(parts).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** next-auth's CSRF token and the cookie it belongs with, as its browser client gets them. */
async function csrfPair(baseURL: string): Promise<{ token: string; cookie: string }> {
  const res = await send(`${baseURL}/api/auth/csrf`);
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = cookies.map((c) => c.split(';')[0]!).find((c) => c.startsWith('next-auth.csrf-token='))!;
  return { token: (JSON.parse(res.text) as { csrfToken: string }).csrfToken, cookie };
}

/** A credentials sign-in as next-auth's client posts it (json=true: the answer is {url}). */
async function signIn(
  baseURL: string,
  csrf: { token: string; cookie: string },
  fields: { email: string; password: string; callbackUrl?: string },
  opts: { localAddress?: string; forwardedFor?: string } = {},
) {
  const res = await send(`${baseURL}/api/auth/callback/credentials`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: csrf.cookie,
      ...(opts.forwardedFor && { 'x-forwarded-for': opts.forwardedFor }),
    },
    body: new URLSearchParams({
      ...fields,
      callbackUrl: fields.callbackUrl ?? '/notes',
      csrfToken: csrf.token,
      json: 'true',
    }).toString(),
    ...(opts.localAddress && { localAddress: opts.localAddress }),
  });
  const url = res.status < 500 && res.text ? ((JSON.parse(res.text) as { url?: string }).url ?? null) : null;
  return { ...res, url, error: url ? new URL(url).searchParams.get('error') : null };
}

async function signUp(baseURL: string, email: string, password: string) {
  const res = await send(`${baseURL}/api/trpc/account.signUp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status, res.text).toBe(200);
}

test('four concurrent 100 MB sign-ups are each refused with 413 before their bodies arrive; the server stays up, its memory flat', {
  tag: '@any-database',
}, async ({ baseURL, request }) => {
  expect((await request.get('/api/openapi.json')).status()).toBe(200);
  const before = serverRss();
  const started = Date.now();
  const outcomes = await Promise.all(
    [true, false, true, false].map((declareLength, i) =>
      uploadUntilAnswered(`${baseURL}/api/trpc/account.signUp`, {
        headers: { 'content-type': 'application/json' },
        totalBytes: 100 * MB,
        declareLength,
        prefix: `{"email":"flood-${i}@e2e.test","password":"`,
      }).then((outcome) => ({ ...outcome, ms: Date.now() - started })),
    ),
  );
  const after = serverRss();
  console.log(
    `100 MB sign-ups: ${outcomes.map((o) => `${o.status} after ${o.ms} ms, ${(o.bytesSentBeforeAnswer / MB).toFixed(1)} MB sent`).join('; ')}; ` +
      `server RSS ${(before / MB).toFixed(0)} MB -> ${(after / MB).toFixed(0)} MB (${serverProcesses().length} processes)`,
  );
  for (const outcome of outcomes) {
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.text)).toEqual({
      error: {
        message: 'The request body is larger than 65536 bytes',
        code: -32013,
        data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413, path: 'account.signUp' },
      },
    });
    // Refused while the body was still coming: nowhere near 100 MB had been sent.
    expect(outcome.finishedSending).toBe(false);
    expect(outcome.bytesSentBeforeAnswer).toBeLessThan(25 * MB);
  }
  expect(before).toBeGreaterThan(0);
  expect(after - before).toBeLessThan(100 * MB);
  // Still up, still answering, and no account was made.
  expect((await request.get('/api/openapi.json')).status()).toBe(200);
  const csrf = await csrfPair(baseURL!);
  expect((await signIn(baseURL!, csrf, { email: 'flood-0@e2e.test', password: 'p'.repeat(40) })).error).toBe(
    'CredentialsSignin',
  );
});

test("a 100 MB sign-in to next-auth is refused with 413 and a JSON error, the server's memory flat", {
  tag: '@any-database',
}, async ({ baseURL }) => {
  const before = serverRss();
  const outcomes = await Promise.all(
    [true, false].map((declareLength) =>
      uploadUntilAnswered(`${baseURL}/api/auth/callback/credentials`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        totalBytes: 100 * MB,
        declareLength,
        prefix: 'email=flood%40e2e.test&password=',
      }),
    ),
  );
  for (const outcome of outcomes) {
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.text)).toEqual({
      error: 'payload_too_large',
      message: 'The request body is larger than 16384 bytes',
    });
    expect(outcome.finishedSending).toBe(false);
  }
  expect(serverRss() - before).toBeLessThan(100 * MB);
});

// Which address a request comes from is the HTTP layer's answer; the throttle's counting runs on
// both databases in test/accounts/ui-auth.test.ts.
test('a forged X-Forwarded-For does not get around the per-address sign-in throttle (50 failures, then 429); other clients are not held up', {
  tag: '@any-database',
}, async ({ baseURL }) => {
  const csrf = await csrfPair(baseURL!);
  // 127.0.0.2 is a client of its own (the same machine's loopback), so 127.0.0.1's tests go on.
  const from = { localAddress: '127.0.0.2' };
  for (let i = 0; i < 50; i++) {
    const res = await signIn(
      baseURL!,
      csrf,
      { email: `nobody-${i % 6}@e2e.test`, password: `guess-${i}` },
      { ...from, forwardedFor: `198.51.100.${i}` },
    );
    expect(res.status, `attempt ${i + 1}: ${res.text}`).toBe(401);
  }
  const blocked = await signIn(
    baseURL!,
    csrf,
    { email: 'someone-else@e2e.test', password: 'guess' },
    { ...from, forwardedFor: '203.0.113.99' },
  );
  expect(blocked.status).toBe(429);
  expect(blocked.error).toMatch(/^TooManyAttempts:\d+$/);
  expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // The same from this machine's usual address is only a wrong password.
  expect((await signIn(baseURL!, csrf, { email: 'someone-else@e2e.test', password: 'guess' })).status).toBe(
    401,
  );
});

test('after signing in, callbackUrl leads only to this site', { tag: '@any-database' }, async ({
  baseURL,
}) => {
  const email = `callback-${Date.now()}@e2e.test`;
  const password = 'copper-meadow-lantern-58';
  await signUp(baseURL!, email, password);
  const csrf = await csrfPair(baseURL!);
  for (const [callbackUrl, landing] of [
    ['https://evil.example/', '/notes'],
    ['//evil.example', '/notes'],
    ['/\\evil.example', '/notes'],
    ['/keys', '/keys'],
  ]) {
    const res = await signIn(baseURL!, csrf, { email, password, callbackUrl });
    expect(res.status, res.text).toBe(200);
    expect(res.url, callbackUrl).toBe(`${baseURL}${landing}`);
  }
});
