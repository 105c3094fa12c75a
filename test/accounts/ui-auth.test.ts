import { spawnSync } from 'node:child_process';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { and, eq, like } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, findAccountByEmail } from '../../server/accounts/accounts';
import { passwordProblem } from '../../server/accounts/password-policy';
import { NO_ACCOUNT_HASH } from '../../server/auth/auth-options';
import { accounts, authSessions, emails, rateLimitCounters } from '../../server/db/schema';
import { capturedLogLines } from '../support/captured-logs';
import { seedDemo } from '../../server/seed/seed-demo';
import { BrowserSession, trpcError } from '../support/browser-session';
import { uploadUntilAnswered } from '../support/stream-upload';
import { startTestApp, type TestApp } from '../support/test-app';

// The settings app's protections: bounded requests on /api/trpc and /api/auth, the password
// rules, sessions that end for real, callbackUrl kept on this site, sign-in throttling, a sign-up
// that does not tell who has an account, and logs without stacks or passwords. Everything goes
// through next-auth's and tRPC's real routes over HTTP, as the browser's clients call them.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const PASSWORD = 'quiet-harbor-lantern-71';
let serial = 0;
const uniqueEmail = (tag: string) => `${tag}-${++serial}-${Date.now()}@example.com`;
// Each browser stands for a client of its own address (X-Forwarded-For, with no trusted proxy in
// front the last entry), so one test's address throttle does not reach another's.
const browser = (address = `198.51.100.${++serial % 250}`) =>
  new BrowserSession(app.url, { 'x-forwarded-for': address });

async function signUp(email: string, password = PASSWORD, from = browser()) {
  return from.mutate('account.signUp', { email, password });
}

/** An account that can sign in, and a browser signed in to it. */
async function signedIn(tag = 'user') {
  const email = uniqueEmail(tag);
  expect((await signUp(email)).status).toBe(200);
  const session = browser();
  const res = await session.signIn(email, PASSWORD);
  expect(res.status, res.text).toBe(200);
  const account = (await findAccountByEmail(app.db, email))!;
  return { email, session, account };
}

describe('bounded requests on the settings app', () => {
  it("a tRPC body over 64 KiB with Content-Length is refused with 413 in tRPC's envelope, and nothing is created", async () => {
    const email = uniqueEmail('big');
    const res = await browser().request('/api/trpc/account.signUp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'p'.repeat(70_000) }),
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(
      trpcError('PAYLOAD_TOO_LARGE', 413, 'account.signUp', 'The request body is larger than 65536 bytes'),
    );
    expect(res.headers.get('x-request-id')).toMatch(/\S/);
    expect(await findAccountByEmail(app.db, email)).toBeUndefined();
  });

  it('a chunked tRPC body without Content-Length is cut off as it passes the cap: the 413 comes while the client is still sending', async () => {
    const email = uniqueEmail('chunked');
    const total = 64 * 1024 * 1024;
    const out = await uploadUntilAnswered(`${app.url}/api/trpc/account.signUp`, {
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.10' },
      totalBytes: total,
      declareLength: false,
      prefix: `{"email":"${email}","password":"`,
    });
    expect(out.status).toBe(413);
    expect(JSON.parse(out.text)).toEqual(trpcError('PAYLOAD_TOO_LARGE', 413, 'account.signUp'));
    expect(out.finishedSending).toBe(false);
    expect(out.bytesSentBeforeAnswer).toBeLessThan(total / 2);
    expect(await findAccountByEmail(app.db, email)).toBeUndefined();
  });

  it("next-auth's routes refuse a body over 16 KiB with 413 and a JSON error, declared or chunked", async () => {
    const declared = await browser().request('/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=a%40example.com&password=${'p'.repeat(20_000)}`,
    });
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({
      error: 'payload_too_large',
      message: 'The request body is larger than 16384 bytes',
    });
    const chunked = await uploadUntilAnswered(`${app.url}/api/auth/callback/credentials`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      totalBytes: 32 * 1024 * 1024,
      declareLength: false,
      prefix: 'email=a%40example.com&password=',
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text)).toMatchObject({ error: 'payload_too_large' });
    expect(chunked.finishedSending).toBe(false);
  });

  it('a tRPC batch of more than 10 calls is refused whole (GET and POST); 10 are served', async () => {
    const paths = (n: number, path: string) => Array.from({ length: n }, () => path).join(',');
    const inputs = (n: number, input: unknown) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, input])));
    const tooMany = await browser().request(
      `/api/trpc/${paths(11, 'account.get')}?batch=1&input=${encodeURIComponent(inputs(11, null))}`,
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toMatchObject({
      error: { message: 'Batch call exceeds maximum size', data: { code: 'BAD_REQUEST', httpStatus: 400 } },
    });

    const emailsTried = Array.from({ length: 11 }, () => uniqueEmail('batch'));
    const batch = Object.fromEntries(emailsTried.map((email, i) => [i, { email, password: PASSWORD }]));
    const posted = await browser().request(`/api/trpc/${paths(11, 'account.signUp')}?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    expect(posted.status).toBe(400);
    for (const email of emailsTried) expect(await findAccountByEmail(app.db, email)).toBeUndefined();

    const ten = await browser().request(
      `/api/trpc/${paths(10, 'account.get')}?batch=1&input=${encodeURIComponent(inputs(10, null))}`,
    );
    expect(ten.json).toHaveLength(10);
    expect(ten.json[9]).toMatchObject({ error: { data: { code: 'UNAUTHORIZED', path: 'account.get' } } });
  });
});

describe('passwords within what bcrypt uses, long enough, not guessable', () => {
  it.each([
    [
      '73 ASCII bytes',
      `${'quiet-harbor-lantern-'.repeat(3)}orbit-fjord-9xz`.slice(0, 73),
      /at most 72 bytes/,
    ],
    ['under 72 characters but 73 UTF-8 bytes', `${'é'.repeat(30)}-orbit-fjord-lantern-9`, /at most 72 bytes/],
    ['9 characters', 'Xq7#vB2!m', /at least 10 characters/],
    ['a common password', 'password123', /too easy to guess\. This is a commonly used password/],
    ['a repeated character', 'aaaaaaaaaaaa', /too easy to guess\. Repeated characters/],
    ['a keyboard row', 'qwertyuiop[]', /too easy to guess/],
  ])('sign-up refuses %s with a clear message, and creates nothing', async (_what, password, message) => {
    const email = uniqueEmail('weak');
    const res = await signUp(email, password);
    expect(res.status).toBe(400);
    expect(res.json).toEqual(trpcError('BAD_REQUEST', 400, 'account.signUp', expect.stringMatching(message)));
    expect(await findAccountByEmail(app.db, email)).toBeUndefined();
  });

  it('the address and name of the account count as guessable', async () => {
    const email = `margaret.hamilton-${++serial}@example.com`;
    const res = await signUp(email, `margaret.hamilton-${serial}`);
    expect(res.json.error.message).toMatch(/too easy to guess/);
  });

  it('exactly 72 bytes of a strong password is accepted and signs in', async () => {
    const password = `${'🔑'.repeat(4)} orbit lantern fjord ${'x'.repeat(72)}`;
    const exact = Buffer.from(password).subarray(0, 72).toString('utf8');
    expect(Buffer.byteLength(exact)).toBe(72);
    const email = uniqueEmail('exact');
    expect((await signUp(email, exact)).json).toEqual({ result: { data: { checkEmail: true } } });
    expect((await browser().signIn(email, exact)).status).toBe(200);
  });

  it('a password over 72 bytes never signs in, so 72 bytes of it do not open an account whose password was longer', async () => {
    // An account from before the rule, whose password bcrypt cut to its first 72 bytes.
    const long = `${'p'.repeat(72)}the-real-rest-of-it`;
    const email = uniqueEmail('legacy');
    await createAccount(app.db, { email, passwordHash: await bcrypt.hash(long, 12) });
    const attacker = await browser().signIn(email, `${'p'.repeat(72)}anything`);
    expect(attacker).toMatchObject({ status: 401, error: 'CredentialsSignin' });
    expect(attacker.headers.getSetCookie().join()).not.toContain('session-token');
    expect((await browser().signIn(email, long)).error).toBe('CredentialsSignin');
    expect((await browser().signIn(email, 'p'.repeat(72))).status).toBe(200); // what bcrypt really compared
  });

  it("the demo account's generated password passes the rules; a weak one given to the admin path is refused", async () => {
    const demo = await seedDemo(app.db, app.services, { email: uniqueEmail('demo') });
    expect(await passwordProblem(demo.password, [demo.email, 'Demo'])).toBeNull();
    expect((await browser().signIn(demo.email, demo.password)).status).toBe(200);
    await expect(
      createAccount(app.db, { email: uniqueEmail('admin'), password: 'password1' }),
    ).rejects.toMatchObject({
      code: 'validation_error',
      message: 'Use a password of at least 10 characters',
    });
  });
});

describe('signing out ends the session on the server', () => {
  it('sign-in records a session; sign-out revokes it, and a copy of the old cookie no longer works anywhere', async () => {
    const { session, account } = await signedIn('signout');
    const rows = await app.db.select().from(authSessions).where(eq(authSessions.accountId, account.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ revokedAt: null });
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(30 * 24 * 3600 * 1000);
    expect((await session.query('account.get')).json.result.data.email).toBe(account.email);
    expect((await session.session()).json).toMatchObject({ accountId: account.id });

    const stolen = session.copy();
    const out = await session.signOut();
    expect(out.status).toBe(200);
    expect(session.cookies.has('next-auth.session-token')).toBe(false);
    const [row] = await app.db.select().from(authSessions).where(eq(authSessions.id, rows[0]!.id));
    expect(row!.revokedAt).toBeInstanceOf(Date);

    expect(await stolen.query('account.get')).toMatchObject({
      status: 401,
      json: trpcError('UNAUTHORIZED', 401, 'account.get', 'Please sign in'),
    });
    const asked = await stolen.session();
    expect(asked.json).toEqual({});
    // next-auth clears the dead cookie in the same answer.
    expect(asked.headers.getSetCookie().some((c) => /^next-auth\.session-token=;.*Max-Age=0/i.test(c))).toBe(
      true,
    );
  });

  it('"sign out everywhere" ends every session of the account, other browsers included, and no one else\'s', async () => {
    const { email, session: laptop, account } = await signedIn('everywhere');
    const phone = browser();
    expect((await phone.signIn(email, PASSWORD)).status).toBe(200);
    const bystander = await signedIn('bystander');

    const ended = await laptop.mutate('account.signOutEverywhere');
    expect(ended.json).toEqual({ result: { data: { ended: 2 } } });
    expect((await phone.query('account.get')).status).toBe(401);
    expect((await laptop.query('account.get')).status).toBe(401);
    expect((await phone.session()).json).toEqual({});
    expect((await bystander.session.query('account.get')).status).toBe(200);
    const live = await app.db
      .select()
      .from(authSessions)
      .where(and(eq(authSessions.accountId, account.id)));
    expect(live.every((s) => s.revokedAt !== null)).toBe(true);
    // Signing in again works, with a new session.
    expect((await phone.signIn(email, PASSWORD)).status).toBe(200);
    expect((await phone.query('account.get')).status).toBe(200);
  });

  it('a session past its 30 days, or a token that names no session (made before sessions were recorded), is no session', async () => {
    const { session, account } = await signedIn('expired');
    await app.db
      .update(authSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authSessions.accountId, account.id));
    expect((await session.query('account.get')).status).toBe(401);
    expect((await session.session()).json).toEqual({});

    const legacy = await encode({
      token: { email: account.email, accountId: account.id },
      secret: 'test-only-session-secret',
    });
    const old = browser();
    old.cookies.set('next-auth.session-token', legacy);
    expect((await old.query('account.get')).status).toBe(401);
    expect((await old.session()).json).toEqual({});
  });
});

describe('callbackUrl only leads to this site', () => {
  it.each([
    ['//evil.example', '/notes'],
    ['/\\evil.example', '/notes'],
    ['https://evil.example/', '/notes'],
    ['javascript:alert(1)', '/notes'],
    ['http://127.0.0.1.evil.example/', '/notes'],
    ['/keys?tab=form#new', '/keys?tab=form#new'],
    ['/account?welcome=1', '/account?welcome=1'],
  ])('signing in with callbackUrl %s lands on %s', async (callbackUrl, landing) => {
    const email = uniqueEmail('cb');
    await signUp(email);
    const res = await browser().signIn(email, PASSWORD, callbackUrl);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${app.url}${landing}`);
  });

  it("next-auth's own pages never follow an outside callbackUrl and never fail on an invalid one", async () => {
    for (const callbackUrl of ['https://evil.example/', 'javascript:alert(1)', '%%%', '//evil.example']) {
      const signin = await browser().request(
        `/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`,
      );
      expect(signin.status, `${callbackUrl}: ${signin.text}`).toBe(302);
      expect(signin.headers.get('location')).toMatch(/^\/sign-in\?callbackUrl=/);
      expect(decodeURIComponent(signin.headers.get('location')!)).not.toContain('evil.example');
    }
    const cookie = new BrowserSession(app.url);
    cookie.cookies.set('next-auth.callback-url', encodeURIComponent('javascript:alert(1)'));
    expect((await cookie.session()).status).toBe(200);
  });

  it('an error code with control characters becomes a plain one, not a broken redirect', async () => {
    for (const path of [
      '/api/auth/error?error=%00',
      '/api/auth/error?error=x%0d%0aSet-Cookie:%20a=b',
      '/api/auth/error/%0d%0a',
    ]) {
      const res = await browser().request(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location')).toBe('/sign-in?error=Default');
    }
    expect(
      (await browser().request('/api/auth/error?error=CredentialsSignin')).headers.get('location'),
    ).toMatch(/\/api\/auth\/signin\?error=CredentialsSignin$/);
  });
});

describe('sign-in is throttled per email and per client address', {
  timeout: 180_000,
}, () => {
  it('10 failures for one email in 15 minutes, then even the right password waits (429, Retry-After); other emails do not', async () => {
    const email = uniqueEmail('throttle');
    await signUp(email);
    const other = uniqueEmail('unthrottled');
    await signUp(other);
    for (let i = 0; i < 10; i++) {
      const wrong = await browser().signIn(email, `wrong-password-${i}`);
      expect(wrong, `attempt ${i + 1}`).toMatchObject({ status: 401, error: 'CredentialsSignin' });
    }
    const blocked = await browser().signIn(email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.error).toMatch(/^TooManyAttempts:\d+$/);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(Number(blocked.error!.split(':')[1])).toBe(retryAfter);
    expect(blocked.headers.getSetCookie().join()).not.toContain('session-token');
    expect((await browser().signIn(other, PASSWORD)).status).toBe(200);
  });

  it('50 failures from one client address, spread over emails, then that address waits; another address does not', async () => {
    const address = '203.0.113.77';
    const targets = await Promise.all(Array.from({ length: 6 }, async () => uniqueEmail('spray')));
    for (let i = 0; i < 50; i++) {
      const res = await browser(address).signIn(targets[i % targets.length]!, `spray-${i}`);
      expect(res.status, `attempt ${i + 1}`).toBe(401);
    }
    const email = uniqueEmail('victim');
    await signUp(email);
    expect((await browser(address).signIn(email, PASSWORD)).status).toBe(429);
    expect((await browser('203.0.113.78').signIn(email, PASSWORD)).status).toBe(200);
  });

  it('only failures count: a successful sign-in takes its attempt back; unknown emails count like known ones', async () => {
    const email = uniqueEmail('refund');
    await signUp(email);
    for (let i = 0; i < 3; i++) await browser().signIn(email, 'not-the-password');
    expect((await browser().signIn(email, PASSWORD)).status).toBe(200);
    const counters = await app.db
      .select()
      .from(rateLimitCounters)
      .where(like(rateLimitCounters.bucket, 'sign-in:email:%'));
    const digest = (await import('node:crypto'))
      .createHash('sha256')
      .update(email.toLowerCase())
      .digest('base64url');
    expect(counters.find((c) => c.bucket === `sign-in:email:${digest}`)?.count).toBe(3);

    const nobody = uniqueEmail('nobody');
    for (let i = 0; i < 10; i++) expect((await browser().signIn(nobody, 'guess')).status).toBe(401);
    expect((await browser().signIn(nobody, 'guess')).status).toBe(429);
  });

  it("an unknown email costs a real bcrypt comparison: the stand-in hash is a 60-character hash of the accounts' cost", async () => {
    const email = uniqueEmail('cost');
    await signUp(email);
    const account = (await findAccountByEmail(app.db, email))!;
    expect(NO_ACCOUNT_HASH).toHaveLength(60);
    expect(bcrypt.getRounds(NO_ACCOUNT_HASH)).toBe(bcrypt.getRounds(account.passwordHash!));
    expect(await bcrypt.compare('', NO_ACCOUNT_HASH)).toBe(false);
  });

  it('outside the test runner passwords hash at cost 12, and the stand-in hash is at 12 too', () => {
    // This suite hashes at a low cost to stay fast; the service as it runs must not.
    const script = `(async () => {
      const accounts = await import('./server/accounts/accounts.ts');
      const auth = await import('./server/auth/auth-options.ts');
      const bcrypt = (await import('bcryptjs')).default;
      console.log(JSON.stringify({ cost: accounts.PASSWORD_HASH_COST, standIn: bcrypt.getRounds(auth.NO_ACCOUNT_HASH) }));
    })()`;
    const result = spawnSync(path.resolve('node_modules/.bin/tsx'), ['-e', script], {
      env: { ...process.env, NODE_ENV: 'production' },
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ cost: 12, standIn: 12 });
  });
});

describe('sign-up does not tell whether an address has an account', {
  timeout: 180_000,
}, () => {
  it("a new and a taken address get the same answer; the new one a welcome email, the owner of the taken one a warning; nothing of the owner's changes", async () => {
    const fresh = uniqueEmail('fresh');
    const first = await signUp(fresh, PASSWORD);
    const again = await signUp(fresh.toUpperCase(), 'another-harbor-password-42');
    expect(first.status).toBe(200);
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(first.json).toEqual({ result: { data: { checkEmail: true } } });

    const owner = (await findAccountByEmail(app.db, fresh))!;
    expect(
      (
        await app.db
          .select()
          .from(accounts)
          .where(like(accounts.email, `%${fresh.slice(5)}%`))
      ).length,
    ).toBe(1);
    const sent = await app.db
      .select()
      .from(emails)
      .where(eq(emails.accountId, owner.id))
      .orderBy(emails.createdAt);
    expect(sent.map((e) => [e.to, e.subject])).toEqual([
      [fresh, 'Welcome to Meeting Notes'],
      [fresh, 'Someone tried to sign up with your email address'],
    ]);
    expect(sent[1]!.body).toContain('nothing changed');
    expect(sent.map((e) => e.body).join()).not.toMatch(/quiet-harbor|another-harbor/);
    expect((await browser().signIn(fresh, PASSWORD)).status).toBe(200);
    expect((await browser().signIn(fresh, 'another-harbor-password-42')).status).toBe(401);
  });

  it('sign-ups are throttled per address (20 an hour) and per email (5 an hour), with a message to wait', async () => {
    const email = uniqueEmail('flood');
    for (let i = 0; i < 5; i++) expect((await signUp(email)).status).toBe(200);
    const sixth = await signUp(email);
    expect(sixth.status).toBe(429);
    expect(sixth.json).toEqual(
      trpcError(
        'TOO_MANY_REQUESTS',
        429,
        'account.signUp',
        expect.stringMatching(/Please try again in \d+ minutes/),
      ),
    );
    const owner = (await findAccountByEmail(app.db, email))!;
    expect(await app.db.select().from(emails).where(eq(emails.accountId, owner.id))).toHaveLength(5);

    const from = browser('192.0.2.200');
    for (let i = 0; i < 20; i++) expect((await signUp(uniqueEmail('many'), PASSWORD, from)).status).toBe(200);
    expect((await signUp(uniqueEmail('many'), PASSWORD, from)).status).toBe(429);
  });
});

describe('logs', () => {
  it('a garbage session cookie is no session, logged as one JSON line without a stack trace', async () => {
    const garbage = new BrowserSession(app.url);
    garbage.cookies.set(
      'next-auth.session-token',
      'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..garbage.garbage.garbage',
    );
    let trpc: Awaited<ReturnType<BrowserSession['query']>> | undefined;
    let session: Awaited<ReturnType<BrowserSession['session']>> | undefined;
    const lines = await capturedLogLines(async () => {
      trpc = await garbage.query('account.get');
      session = await garbage.session();
    });
    expect(trpc!.status).toBe(401);
    expect(session!.json).toEqual({});
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({
      level: 'info',
      msg: 'session cookie refused',
      code: 'JWT_SESSION_ERROR',
      requestId: session!.headers.get('x-request-id'),
    });
    expect(lines[0]).not.toMatch(/stack|\\n\s+at /);
  });

  it('no password reaches the logs: sign-up, wrong and right sign-in, throttled sign-in and sign-out at debug level', async () => {
    const secret = 'ultramarine-kestrel-password-9931';
    const wrong = 'cinnabar-heron-wrong-password-4417';
    const email = uniqueEmail('logs');
    const lines = await capturedLogLines(async () => {
      await signUp(email, secret);
      const who = browser();
      await who.signIn(email, wrong);
      await who.signIn(email, secret);
      await who.signOut();
      await signUp(uniqueEmail('logs'), 'password123');
      await signUp(email, 'p'.repeat(100));
    });
    expect(lines.length).toBeGreaterThan(0); // the emails are logged without SMTP
    for (const line of lines) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(line).not.toContain(secret);
      expect(line).not.toContain(wrong);
      expect(line).not.toContain('password123');
      expect(line).not.toContain('p'.repeat(73));
    }
  });
});
