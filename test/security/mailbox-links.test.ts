import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, findAccountByEmail } from '../../server/accounts/accounts';
import { emails } from '../../server/db/schema';
import { BrowserSession, trpcError } from '../support/browser-session';
import { capturedLogLines } from '../support/captured-logs';
import { type CapturedMail, linkIn, startSmtpCapture, waitForMail } from '../support/smtp-capture';
import { startTestApp, type TestApp } from '../support/test-app';

// A link that proves control of an address (verify it, reset a password) reaches only that
// mailbox: the settings app lists such a message without its text, it is stored without it, no
// log holds it when SMTP is configured, and operator status needs a link opened from the mailbox.

const OPERATOR = 'boss@example.com';
const PASSWORD = 'quiet-harbor-lantern-71';

let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let app: TestApp;
let serial = 0;
const uniqueEmail = (tag: string) => `${tag}-${++serial}-${Date.now()}@example.com`;
const browser = () => new BrowserSession(app.url, { 'x-forwarded-for': `198.51.100.${++serial % 250}` });

beforeAll(async () => {
  smtp = await startSmtpCapture();
  app = await startTestApp({
    worker: true,
    env: {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      ADMIN_EMAILS: `${OPERATOR}, second-boss@example.com`,
      NEXTAUTH_URL: 'http://notes.example.test',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

/** The newest mail to `address` with this subject, waited for (some are sent in the background). */
const mailTo = (address: string, subject: string): Promise<CapturedMail> =>
  waitForMail(() => smtp.mails, address, subject, { timeoutMs: 15_000, intervalMs: 50 });
const tokenOf = (link: URL) => link.searchParams.get('token') ?? '';

async function signedUp(email: string) {
  const session = browser();
  expect((await session.mutate('account.signUp', { email, password: PASSWORD })).status).toBe(200);
  expect((await session.signIn(email, PASSWORD)).status).toBe(200);
  return session;
}

describe('operator status needs a link opened from the mailbox', () => {
  it("signing up with an operator's address opens nothing: the app never shows the link, so only the mailbox's owner becomes the operator", async () => {
    const squatter = await signedUp(OPERATOR);
    const mail = await mailTo(OPERATOR, 'Welcome to Meeting Notes');
    const token = tokenOf(linkIn(mail, '/verify-email'));

    const seen = await squatter.query('account.get');
    expect(seen.status).toBe(200);
    expect(seen.text).not.toContain(token);
    expect(seen.text).not.toContain('token=');
    expect(seen.json.result.data).toMatchObject({
      emailVerified: false,
      mailboxProven: false,
      operator: false,
      operatorAddress: true,
    });
    expect(seen.json.result.data.emails).toEqual([
      expect.objectContaining({ subject: 'Welcome to Meeting Notes', body: null, transport: 'smtp' }),
    ]);
    expect((await squatter.query('admin.accounts')).status).toBe(403);

    // Whoever opens the mailed link is the one who reads that mailbox.
    expect((await browser().mutate('account.verifyEmail', { token })).status).toBe(200);
    const proven = await squatter.query('account.get');
    expect(proven.json.result.data).toMatchObject({
      emailVerified: true,
      mailboxProven: true,
      operator: true,
    });
    expect((await squatter.query('admin.accounts')).status).toBe(200);
  });

  it('an account made by an operator with an operator address counts as verified, yet opens the console only once its mailbox is proven', async () => {
    const email = 'second-boss@example.com';
    await createAccount(app.db, { email, password: PASSWORD });
    const session = browser();
    expect((await session.signIn(email, PASSWORD)).status).toBe(200);
    expect((await session.query('account.get')).json.result.data).toMatchObject({
      emailVerified: true,
      mailboxProven: false,
      operator: false,
      operatorAddress: true,
    });
    expect((await session.query('admin.accounts')).status).toBe(403);

    // A verified address can still ask for a link, which proves the mailbox.
    expect((await session.mutate('account.resendVerification')).json).toEqual({
      result: { data: { sentTo: email } },
    });
    const token = tokenOf(linkIn(await mailTo(email, 'Confirm your email address'), '/verify-email'));
    expect((await browser().mutate('account.verifyEmail', { token })).status).toBe(200);
    expect((await session.query('admin.accounts')).status).toBe(200);

    // Proven once, there is nothing more to send.
    const again = await session.mutate('account.resendVerification');
    expect(again.status).toBe(409);
    expect(again.json).toEqual(
      trpcError('CONFLICT', 409, 'account.resendVerification', 'Your email address is verified already'),
    );
  });
});

describe('a session cannot read a live link', () => {
  it('a stolen session that asks for a reset of its victim sees the message listed, never the link, and cannot set the password', async () => {
    const email = uniqueEmail('victim');
    const victim = await signedUp(email);
    await mailTo(email, 'Welcome to Meeting Notes');
    const thief = victim.copy();

    expect((await browser().mutate('account.requestPasswordReset', { email })).status).toBe(200);
    const reset = await mailTo(email, 'Reset your Meeting Notes password');
    const token = tokenOf(linkIn(reset, '/reset-password'));

    const seen = await vi.waitFor(async () => {
      const res = await thief.query('account.get');
      const listed = res.json.result.data.emails.map((e: { subject: string }) => e.subject);
      if (!listed.includes('Reset your Meeting Notes password')) throw new Error('not listed yet');
      return res;
    });
    expect(seen.text).not.toContain(token);
    expect(seen.text).not.toContain('token=');
    for (const listed of seen.json.result.data.emails) expect(listed.body).toBeNull();

    // The link still works for the mailbox's owner, once.
    const owner = browser();
    const done = await owner.mutate('account.resetPassword', { token, password: 'velvet-canyon-orchid-58' });
    expect(done.status).toBe(200);
  });

  it('a link message is stored without its text; a notice without a link keeps its text for the Account page', async () => {
    const email = uniqueEmail('stored');
    await signedUp(email);
    await mailTo(email, 'Welcome to Meeting Notes');
    // Signing up again with a taken address mails a notice without any link.
    expect((await browser().mutate('account.signUp', { email, password: PASSWORD })).status).toBe(200);
    await mailTo(email, 'Someone tried to sign up with your email address');
    const account = (await findAccountByEmail(app.db, email))!;
    const stored = await app.db.select().from(emails).where(eq(emails.accountId, account.id));
    const bySubject = Object.fromEntries(stored.map((e) => [e.subject, e.body]));
    expect(bySubject['Welcome to Meeting Notes']).toBeNull();
    expect(bySubject['Someone tried to sign up with your email address']).toContain('nothing changed');
  });
});

describe('logs', () => {
  it('with SMTP configured, no token of a verification or reset link reaches the log, at debug level', async () => {
    const email = uniqueEmail('logs');
    const lines = await capturedLogLines(async () => {
      const session = await signedUp(email);
      await mailTo(email, 'Welcome to Meeting Notes');
      await session.mutate('account.resendVerification');
      await mailTo(email, 'Confirm your email address');
      await browser().mutate('account.requestPasswordReset', { email });
      await mailTo(email, 'Reset your Meeting Notes password');
      await session.query('account.get');
    });
    const tokens = smtp.mails
      .filter((m) => m.to.includes(email))
      .flatMap((m) => [...m.text.matchAll(/token=([A-Za-z0-9_-]+)/g)].map((match) => match[1]!));
    expect(tokens).toHaveLength(3);
    for (const line of lines) for (const token of tokens) expect(line).not.toContain(token);
    expect(lines.join('\n')).not.toContain('token=');
  });

  it('without SMTP (local development) the message goes to the server log, and the app still lists it without its text', async () => {
    const local = await startTestApp({ env: { NEXTAUTH_URL: 'http://notes.example.test' } });
    try {
      const email = uniqueEmail('no-smtp');
      const session = new BrowserSession(local.url, { 'x-forwarded-for': '198.51.100.7' });
      const lines = await capturedLogLines(async () => {
        await session.mutate('account.signUp', { email, password: PASSWORD });
      });
      const logged = lines.map((l) => JSON.parse(l)).find((e) => e.msg === 'email (no SMTP_URL configured)');
      expect(logged).toMatchObject({ to: email, subject: 'Welcome to Meeting Notes' });
      expect(logged.body).toMatch(/http:\/\/notes\.example\.test\/verify-email\?token=[A-Za-z0-9_-]{43}/);
      expect((await session.signIn(email, PASSWORD)).status).toBe(200);
      const seen = await session.query('account.get');
      expect(seen.json.result.data.emails).toEqual([
        expect.objectContaining({ subject: 'Welcome to Meeting Notes', body: null, transport: 'log' }),
      ]);
      expect(seen.text).not.toContain('token=');
    } finally {
      await local.close();
    }
  });
});

describe('procedures that send email or spend a throttle come one at a time', () => {
  const batchOf = (path: string, inputs: unknown[]) =>
    browser().request(`/api/trpc/${inputs.map(() => path).join(',')}?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Object.fromEntries(inputs.map((input, i) => [i, input]))),
    });

  it('ten sign-ups in one batch make no account and send no email; each call says to send it alone', async () => {
    const addresses = Array.from({ length: 10 }, () => uniqueEmail('batched'));
    const mailsBefore = smtp.mails.length;
    const res = await batchOf(
      'account.signUp',
      addresses.map((email) => ({ email, password: PASSWORD })),
    );
    expect(res.status).toBe(400);
    expect(res.json).toHaveLength(10);
    for (const answer of res.json)
      expect(answer).toEqual(
        trpcError('BAD_REQUEST', 400, 'account.signUp', 'Send this request on its own, not in a batch'),
      );
    for (const email of addresses) expect(await findAccountByEmail(app.db, email)).toBeUndefined();
    expect(smtp.mails.length).toBe(mailsBefore);
  });

  it.each([
    ['account.signUp', { email: 'alone@example.com', password: PASSWORD }],
    ['account.requestPasswordReset', { email: 'alone@example.com' }],
    ['account.resetPassword', { token: 'x'.repeat(43), password: PASSWORD }],
    ['account.verifyEmail', { token: 'x'.repeat(43) }],
  ])('%s refuses even a batch of one', async (path, input) => {
    const mailsBefore = smtp.mails.length;
    const res = await batchOf(path, [input]);
    expect(res.json).toEqual([
      trpcError('BAD_REQUEST', 400, path, 'Send this request on its own, not in a batch'),
    ]);
    expect(smtp.mails.length).toBe(mailsBefore);
  });

  it('a signed-in account asks for a verification link alone too; queries still come in batches', async () => {
    const email = uniqueEmail('resend-batch');
    const session = await signedUp(email);
    await mailTo(email, 'Welcome to Meeting Notes');
    const batched = await session.request('/api/trpc/account.resendVerification?batch=1', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ 0: null }),
    });
    expect(batched.json).toEqual([
      trpcError(
        'BAD_REQUEST',
        400,
        'account.resendVerification',
        'Send this request on its own, not in a batch',
      ),
    ]);
    const queries = await session.request(
      `/api/trpc/account.get,keys.list?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`,
    );
    expect(queries.status).toBe(200);
    expect(queries.json).toHaveLength(2);
  });
});
