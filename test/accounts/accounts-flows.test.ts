import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accountEmailVerified, createAccount, findAccountByEmail } from '../../server/accounts/accounts';
import { accountAuditLog, accounts, accountTokens, authSessions, emails, jobs } from '../../server/db/schema';
import { INVALID_VERIFICATION_LINK } from '../../server/auth/email-verification';
import { INVALID_RESET_LINK } from '../../server/auth/password-reset';
import { BrowserSession, trpcError } from '../support/browser-session';
import { type CapturedMail, linkIn, startSmtpCapture, waitForMail } from '../support/smtp-capture';
import { startTestApp, type TestApp } from '../support/test-app';

// Account flows over HTTP, as the settings app's clients call them: verification and reset links
// sent through a real SMTP server on 127.0.0.1 and followed from the mails it caught; early access
// asked for and granted in the operator console; the audit log. The worker runs, as under `npm
// start`: reset emails are sent by it, after the answer.

const OPERATOR = 'operator@example.com';
const PASSWORD = 'quiet-harbor-lantern-71';
const NEW_PASSWORD = 'velvet-canyon-orchid-58';

let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let app: TestApp;
let serial = 0;
const uniqueEmail = (tag: string) => `${tag}-${++serial}-${Date.now()}@example.com`;
const browser = () => new BrowserSession(app.url, { 'x-forwarded-for': `203.0.113.${++serial % 250}` });

beforeAll(async () => {
  smtp = await startSmtpCapture();
  app = await startTestApp({
    worker: true,
    env: {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      EMAIL_FROM: 'Meeting Notes <no-reply@example.com>',
      ADMIN_EMAILS: `${OPERATOR.toUpperCase()}, second-operator@example.com`,
      NEXTAUTH_URL: 'http://notes.example.test',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));
// Most mails are sent before the procedure answers; a reset mail comes from the worker after it.
const lastMailTo = (address: string, subject: string | RegExp): Promise<CapturedMail> =>
  waitForMail(() => smtp.mails, address, subject, { timeoutMs: 15_000, intervalMs: 20 });

/** Waits until no job is queued for the address: the worker has done (and dropped) what was asked. */
async function queueDrainedFor(address: string) {
  await vi.waitFor(
    async () => expect(await app.db.select().from(jobs).where(eq(jobs.email, address))).toEqual([]),
    { timeout: 15_000, interval: 20 },
  );
}

const tokenOf = (link: URL) => link.searchParams.get('token') ?? '';

/** Signs up through the settings app and signs in: the account is unverified. */
async function signedUp(tag: string) {
  const email = uniqueEmail(tag);
  const session = browser();
  expect((await session.mutate('account.signUp', { email, password: PASSWORD })).status).toBe(200);
  expect((await session.signIn(email, PASSWORD)).status).toBe(200);
  const account = (await findAccountByEmail(app.db, email))!;
  return { email, session, account };
}

async function verified(tag: string) {
  const who = await signedUp(tag);
  const link = linkIn(await lastMailTo(who.email, 'Welcome to Meeting Notes'), '/verify-email');
  expect((await browser().mutate('account.verifyEmail', { token: tokenOf(link) })).status).toBe(200);
  return who;
}

/**
 * The signed-in operator: made as the admin CLI makes accounts (verified, but its mailbox not
 * proven), then proven the only way there is, through a link opened from the mailbox.
 */
async function operatorSession() {
  const made = !(await findAccountByEmail(app.db, OPERATOR));
  if (made) await createAccount(app.db, { email: OPERATOR, password: PASSWORD });
  const session = browser();
  expect((await session.signIn(OPERATOR, PASSWORD)).status).toBe(200);
  if (made) {
    expect((await session.mutate('account.resendVerification')).status).toBe(200);
    const link = linkIn(await lastMailTo(OPERATOR, 'Confirm your email address'), '/verify-email');
    expect((await browser().mutate('account.verifyEmail', { token: tokenOf(link) })).status).toBe(200);
  }
  return session;
}

describe('the address is verified by an emailed, single-use, expiring link', () => {
  it('sign-up emails a verification link by SMTP; the account signs in unverified and says so; the link verifies it once', async () => {
    const { email, session, account } = await signedUp('verify');
    expect(await accountEmailVerified(app.db, account.id)).toBe(false);
    const before = await session.query('account.get');
    expect(before.status).toBe(200);
    expect(before.json.result.data).toMatchObject({ email, emailVerified: false, earlyAccess: false });

    const mail = await lastMailTo(email, 'Welcome to Meeting Notes');
    expect(mail.to).toEqual([email]);
    const link = linkIn(mail, '/verify-email');
    // The link points at the configured site (NEXTAUTH_URL), never at a Host header's.
    expect(link.origin).toBe('http://notes.example.test');
    expect(tokenOf(link)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only a digest is stored.
    const stored = await app.db.select().from(accountTokens).where(eq(accountTokens.accountId, account.id));
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(tokenOf(link));

    const opened = await browser().mutate('account.verifyEmail', { token: tokenOf(link) });
    expect(opened.status).toBe(200);
    expect(opened.json).toEqual({ result: { data: { email } } });
    expect(await accountEmailVerified(app.db, account.id)).toBe(true);
    expect((await session.query('account.get')).json.result.data.emailVerified).toBe(true);

    const again = await browser().mutate('account.verifyEmail', { token: tokenOf(link) });
    expect(again.status).toBe(400);
    expect(again.json).toEqual(
      trpcError('BAD_REQUEST', 400, 'account.verifyEmail', INVALID_VERIFICATION_LINK),
    );
  });

  it('an expired link, a made-up token, a tampered one and an over-long one are refused alike, and verify nothing', async () => {
    const { email, account } = await signedUp('expired');
    const token = tokenOf(linkIn(await lastMailTo(email, 'Welcome to Meeting Notes'), '/verify-email'));
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [tampered, 'x'.repeat(43), '', '../../etc', 'a'.repeat(200)]) {
      const res = await browser().mutate('account.verifyEmail', { token: bad });
      expect(res.status, bad).toBe(400);
      expect(res.json).toEqual(
        trpcError('BAD_REQUEST', 400, 'account.verifyEmail', INVALID_VERIFICATION_LINK),
      );
    }
    const tooLong = await browser().mutate('account.verifyEmail', { token: 'a'.repeat(201) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json).toEqual(
      trpcError('BAD_REQUEST', 400, 'account.verifyEmail', 'This link is not valid'),
    );

    await app.db
      .update(accountTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(accountTokens.accountId, account.id));
    const expired = await browser().mutate('account.verifyEmail', { token });
    expect(expired.status).toBe(400);
    expect(expired.json.error.message).toBe(INVALID_VERIFICATION_LINK);
    expect(await accountEmailVerified(app.db, account.id)).toBe(false);
  });

  it('"send the link again" mails a new link and the earlier one stops working; a verified account is told it is verified', async () => {
    const { email, session, account } = await signedUp('resend');
    const first = tokenOf(linkIn(await lastMailTo(email, 'Welcome to Meeting Notes'), '/verify-email'));
    const resent = await session.mutate('account.resendVerification');
    expect(resent.status).toBe(200);
    expect(resent.json).toEqual({ result: { data: { sentTo: email } } });
    const second = tokenOf(linkIn(await lastMailTo(email, 'Confirm your email address'), '/verify-email'));
    expect(second).not.toBe(first);
    expect((await browser().mutate('account.verifyEmail', { token: first })).status).toBe(400);
    expect(await accountEmailVerified(app.db, account.id)).toBe(false);
    expect((await browser().mutate('account.verifyEmail', { token: second })).status).toBe(200);
    expect(await accountEmailVerified(app.db, account.id)).toBe(true);

    const done = await session.mutate('account.resendVerification');
    expect(done.status).toBe(409);
    expect(done.json).toEqual(
      trpcError('CONFLICT', 409, 'account.resendVerification', 'Your email address is verified already'),
    );
    expect(await browser().mutate('account.resendVerification')).toMatchObject({ status: 401 });
  });

  it('sending the link again is limited to 5 an hour per account, with a message to wait', async () => {
    const { session, account } = await signedUp('resend-flood');
    for (let i = 0; i < 5; i++) expect((await session.mutate('account.resendVerification')).status).toBe(200);
    const sixth = await session.mutate('account.resendVerification');
    expect(sixth.status).toBe(429);
    expect(sixth.json.error.message).toMatch(
      /^Too many verification emails\. Please try again in \d+ minutes?\.$/,
    );
    const sent = await app.db.select().from(emails).where(eq(emails.accountId, account.id));
    expect(sent).toHaveLength(6); // the welcome and five links
  });

  it('accounts made by an operator (CLI, console) or an OAuth provider count as verified; sign-ups do not', async () => {
    const made = await createAccount(app.db, { email: uniqueEmail('cli') });
    expect(await accountEmailVerified(app.db, made.id)).toBe(true);
    const { account } = await signedUp('self');
    expect(account.emailVerifiedAt).toBeNull();
    expect(await accountEmailVerified(app.db, '00000000-0000-4000-8000-000000000000')).toBe(false);
  });
});

describe('forgot password', () => {
  it('forgot password → the emailed link → a new password: every session ends, the old password stops working, the link works once', async () => {
    const { email, session, account } = await signedUp('reset');
    const other = browser();
    expect((await other.signIn(email, PASSWORD)).status).toBe(200);
    expect((await session.query('account.get')).status).toBe(200);
    expect((await other.query('account.get')).status).toBe(200);

    const asked = await browser().mutate('account.requestPasswordReset', { email: email.toUpperCase() });
    expect(asked.status).toBe(200);
    expect(asked.json).toEqual({ result: { data: { checkEmail: true } } });
    const link = linkIn(await lastMailTo(email, 'Reset your Meeting Notes password'), '/reset-password');
    expect(link.origin).toBe('http://notes.example.test');

    // A password the policy refuses leaves the link usable and changes nothing.
    const weak = await browser().mutate('account.resetPassword', {
      token: tokenOf(link),
      password: 'password1',
    });
    expect(weak.status).toBe(400);
    expect(weak.json.error.data.code).toBe('BAD_REQUEST');
    expect((await session.query('account.get')).status).toBe(200);

    const reset = await browser().mutate('account.resetPassword', {
      token: tokenOf(link),
      password: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);
    expect(reset.json).toEqual({ result: { data: { email } } });

    expect((await session.query('account.get')).status).toBe(401);
    expect((await other.query('account.get')).status).toBe(401);
    expect((await session.session()).json).toEqual({});
    const live = await app.db.select().from(authSessions).where(eq(authSessions.accountId, account.id));
    expect(live.every((s) => s.revokedAt !== null)).toBe(true);

    expect((await browser().signIn(email, PASSWORD)).status).toBe(401);
    const fresh = browser();
    expect((await fresh.signIn(email, NEW_PASSWORD)).status).toBe(200);
    expect((await fresh.query('account.get')).status).toBe(200);
    // Opening the reset link proved the address too.
    expect(await accountEmailVerified(app.db, account.id)).toBe(true);

    const twice = await browser().mutate('account.resetPassword', {
      token: tokenOf(link),
      password: PASSWORD,
    });
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual(trpcError('BAD_REQUEST', 400, 'account.resetPassword', INVALID_RESET_LINK));
    expect((await fresh.query('account.get')).status).toBe(200);
  });

  it('an address without an account gets the same answer and no email; an expired reset link is refused', async () => {
    const nobody = uniqueEmail('nobody');
    const res = await browser().mutate('account.requestPasswordReset', { email: nobody });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ result: { data: { checkEmail: true } } });
    // The request queued the job before it answered; once the worker has dropped it, it has
    // looked the address up and found nothing to send.
    await queueDrainedFor(nobody);
    expect(mailsTo(nobody)).toEqual([]);

    const { email, account } = await signedUp('reset-expired');
    await browser().mutate('account.requestPasswordReset', { email });
    const token = tokenOf(
      linkIn(await lastMailTo(email, 'Reset your Meeting Notes password'), '/reset-password'),
    );
    await app.db
      .update(accountTokens)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(and(eq(accountTokens.accountId, account.id), eq(accountTokens.purpose, 'reset_password')));
    const late = await browser().mutate('account.resetPassword', { token, password: NEW_PASSWORD });
    expect(late.status).toBe(400);
    expect(late.json.error.message).toBe(INVALID_RESET_LINK);
    expect((await browser().signIn(email, PASSWORD)).status).toBe(200);

    // A verification token is no reset token.
    const verify = tokenOf(linkIn(await lastMailTo(email, 'Welcome to Meeting Notes'), '/verify-email'));
    expect(
      (await browser().mutate('account.resetPassword', { token: verify, password: NEW_PASSWORD })).status,
    ).toBe(400);
    const malformed = await browser().mutate('account.requestPasswordReset', { email: 'not an address' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.message).toBe('Enter a valid email address');
  });

  it('reset requests are limited to 5 an hour per address, with a message to wait', async () => {
    const { email, account } = await signedUp('reset-flood');
    const from = browser();
    for (let i = 0; i < 5; i++)
      expect((await from.mutate('account.requestPasswordReset', { email })).status).toBe(200);
    const sixth = await browser().mutate('account.requestPasswordReset', { email });
    expect(sixth.status).toBe(429);
    expect(sixth.json.error.message).toMatch(/Please try again in \d+ minutes/);
    await queueDrainedFor(email);
    const sent = await app.db
      .select()
      .from(emails)
      .where(and(eq(emails.accountId, account.id), eq(emails.subject, 'Reset your Meeting Notes password')));
    expect(sent).toHaveLength(5);
  });
});

describe('early access as a flow, and the operator console', () => {
  it('request early access → the operators are emailed once → an operator grants it → the first /v1 call succeeds; the grant is in the audit log with who and when', async () => {
    const unverified = await signedUp('early-unverified');
    const refused = await unverified.session.mutate('account.requestEarlyAccess');
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual(
      trpcError(
        'FORBIDDEN',
        403,
        'account.requestEarlyAccess',
        'Please verify your email address before asking for early access',
      ),
    );

    const { email, session, account } = await verified('early');
    const key = await session.mutate('keys.create', { name: 'first', form: 'A' });
    expect(key.status).toBe(200);
    const apiKey = key.json.result.data.plaintext as string;
    expect((await app.request('/v1/notes', { key: apiKey })).status).toBe(403);

    const asked = await session.mutate('account.requestEarlyAccess');
    expect(asked.status).toBe(200);
    const requestedAt = asked.json.result.data.requestedAt as string;
    expect(Date.parse(requestedAt)).not.toBeNaN();
    const told = await lastMailTo(OPERATOR, `Early access requested by ${email}`);
    expect(told.text).toContain(`http://notes.example.test/admin/accounts/${account.id}`);
    expect(mailsTo('second-operator@example.com').some((m) => m.subject.includes(email))).toBe(true);
    // Asked again: still one request, no second email.
    const again = await session.mutate('account.requestEarlyAccess');
    expect(again.json.result.data.requestedAt).toBe(requestedAt);
    expect(mailsTo(OPERATOR).filter((m) => m.subject.includes(email))).toHaveLength(1);
    expect((await session.query('account.get')).json.result.data.earlyAccessRequestedAt).toBe(requestedAt);

    const operator = await operatorSession();
    expect((await operator.query('account.get')).json.result.data.operator).toBe(true);
    const list = await operator.query('admin.accounts', { search: email });
    expect(list.status).toBe(200);
    expect(list.json.result.data).toMatchObject({ total: 1 });
    expect(list.json.result.data.accounts).toEqual([
      expect.objectContaining({
        id: account.id,
        email,
        plan: 'free',
        earlyAccess: false,
        earlyAccessRequestedAt: requestedAt,
        emailVerified: true,
        activeKeys: 1,
        endpoints: 0,
        usageToday: 1,
        limitToday: 100,
      }),
    ]);
    // Open requests come first.
    const all = await operator.query('admin.accounts');
    expect(all.json.result.data.accounts[0].id).toBe(account.id);

    const before = Date.now();
    const granted = await operator.mutate('admin.updateAccount', {
      accountId: account.id,
      earlyAccess: true,
    });
    expect(granted.status).toBe(200);
    expect(granted.json.result.data).toEqual({
      id: account.id,
      plan: 'free',
      dailyLimit: null,
      earlyAccess: true,
      recorded: ['early_access.grant'],
    });
    expect((await app.request('/v1/notes', { key: apiKey })).status).toBe(200);
    expect((await lastMailTo(email, 'Your Meeting Notes account has early access')).to).toEqual([email]);

    const detail = await operator.query('admin.account', { accountId: account.id });
    expect(detail.status).toBe(200);
    expect(detail.json.result.data.audit).toEqual([
      {
        id: expect.any(String),
        actor: OPERATOR,
        action: 'early_access.grant',
        detail: { from: false, to: true },
        createdAt: expect.any(String),
      },
    ]);
    const at = Date.parse(detail.json.result.data.audit[0].createdAt);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    const [row] = await app.db
      .select()
      .from(accountAuditLog)
      .where(eq(accountAuditLog.accountId, account.id));
    expect(row!.actorAccountId).toBe((await findAccountByEmail(app.db, OPERATOR))!.id);

    // The same value again changes and records nothing; a revoke answers 403 again.
    const same = await operator.mutate('admin.updateAccount', { accountId: account.id, earlyAccess: true });
    expect(same.json.result.data.recorded).toEqual([]);
    const revoked = await operator.mutate('admin.updateAccount', {
      accountId: account.id,
      earlyAccess: false,
    });
    expect(revoked.json.result.data.recorded).toEqual(['early_access.revoke']);
    expect((await app.request('/v1/notes', { key: apiKey })).status).toBe(403);
  });

  it('plan and daily limit changes are validated, applied and audited; bad input changes nothing', async () => {
    const operator = await operatorSession();
    const { account } = await verified('plan');
    for (const [input, message] of [
      [{ dailyLimit: 0 }, 'The daily limit must be at least 1'],
      [{ dailyLimit: 1.5 }, 'The daily limit must be a whole number'],
      [{ dailyLimit: 2_147_483_648 }, 'The daily limit must be at most 2147483647'],
      [{ dailyLimit: '10' }, 'The daily limit must be a whole number'],
      [{ plan: 'platinum' }, 'The plan must be one of free, pro, enterprise'],
    ] as const) {
      const res = await operator.mutate('admin.updateAccount', { accountId: account.id, ...input });
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.json).toEqual(trpcError('BAD_REQUEST', 400, 'admin.updateAccount', message));
    }
    const missing = await operator.mutate('admin.updateAccount', {
      accountId: '00000000-0000-4000-8000-000000000000',
      plan: 'pro',
    });
    expect(missing.status).toBe(404);
    expect(
      (await app.db.select().from(accountAuditLog).where(eq(accountAuditLog.accountId, account.id))).length,
    ).toBe(0);

    const changed = await operator.mutate('admin.updateAccount', {
      accountId: account.id,
      plan: 'enterprise',
      dailyLimit: 5000,
    });
    expect(changed.status).toBe(200);
    expect(changed.json.result.data.recorded).toEqual(['plan.change', 'daily_limit.change']);
    const detail = (await operator.query('admin.account', { accountId: account.id })).json.result.data;
    expect(detail).toMatchObject({ plan: 'enterprise', dailyLimit: 5000, limitToday: 5000 });
    expect(detail.audit.map((e: { action: string; detail: unknown }) => [e.action, e.detail])).toEqual(
      expect.arrayContaining([
        ['plan.change', { from: 'free', to: 'enterprise' }],
        ['daily_limit.change', { from: null, to: 5000 }],
      ]),
    );
    const cleared = await operator.mutate('admin.updateAccount', { accountId: account.id, dailyLimit: null });
    expect(cleared.json.result.data).toMatchObject({ dailyLimit: null, recorded: ['daily_limit.change'] });
  });

  it('what the admin CLI does is in the console: create an account with its key, create and revoke keys, each audited', async () => {
    const operator = await operatorSession();
    const email = uniqueEmail('console-made');
    const created = await operator.mutate('admin.createAccount', {
      email,
      plan: 'pro',
      earlyAccess: true,
      form: 'B',
    });
    expect(created.status).toBe(200);
    const { accountId, apiKey, keyId } = created.json.result.data;
    expect(apiKey).toMatch(/^mnk_[0-9A-Za-z]{40}$/);
    expect((await app.request('/v1/notes', { key: apiKey })).status).toBe(200);
    expect(await accountEmailVerified(app.db, accountId)).toBe(true);

    const duplicate = await operator.mutate('admin.createAccount', { email: email.toUpperCase() });
    expect(duplicate.status).toBe(409);

    const second = await operator.mutate('admin.createKey', { accountId, form: 'A', name: 'ci' });
    expect(second.status).toBe(200);
    const secondKey = second.json.result.data.apiKey as string;
    expect((await app.request('/v1/notes', { key: secondKey })).status).toBe(200);

    const revoked = await operator.mutate('admin.revokeKey', { accountId, keyId });
    expect(revoked.json).toEqual({ result: { data: { keyId, revoked: true } } });
    expect((await app.request('/v1/notes', { key: apiKey })).status).toBe(401);

    // A key of another account is not this account's to revoke.
    const stranger = await verified('stranger');
    const strangerKey = await stranger.session.mutate('keys.create', { name: 'mine', form: 'A' });
    const cross = await operator.mutate('admin.revokeKey', {
      accountId,
      keyId: strangerKey.json.result.data.key.id,
    });
    expect(cross.status).toBe(404);

    const detail = (await operator.query('admin.account', { accountId })).json.result.data;
    expect(detail.keys.map((k: { form: string; name: string }) => [k.form, k.name])).toEqual([['A', 'ci']]);
    expect(detail.audit.map((e: { action: string; actor: string }) => [e.action, e.actor]).reverse()).toEqual(
      [
        ['account.create', OPERATOR],
        ['key.create', OPERATOR],
        ['key.revoke', OPERATOR],
      ],
    );
  });

  it('the console is for verified ADMIN_EMAILS addresses only: others get 403, signed-out 401, and change nothing', async () => {
    const { session, account } = await verified('not-operator');
    for (const [path, input, kind] of [
      ['admin.accounts', undefined, 'query'],
      ['admin.account', { accountId: account.id }, 'query'],
      ['admin.updateAccount', { accountId: account.id, earlyAccess: true }, 'mutate'],
      ['admin.createKey', { accountId: account.id }, 'mutate'],
    ] as const) {
      const res = kind === 'query' ? await session.query(path, input) : await session.mutate(path, input);
      expect(res.status, path).toBe(403);
      expect(res.json.error.message).toBe('The operator console is only for the addresses in ADMIN_EMAILS');
      const anonymous =
        kind === 'query' ? await browser().query(path, input) : await browser().mutate(path, input);
      expect(anonymous.status, path).toBe(401);
    }
    expect((await session.query('account.get')).json.result.data.operator).toBe(false);

    // Signing up first with an operator's address gives nothing until the address is proven.
    const squatter = browser();
    await squatter.mutate('account.signUp', { email: 'second-operator@example.com', password: PASSWORD });
    expect((await squatter.signIn('second-operator@example.com', PASSWORD)).status).toBe(200);
    expect((await squatter.query('admin.accounts')).status).toBe(403);
    expect((await squatter.query('account.get')).json.result.data.operator).toBe(false);

    const [after] = await app.db.select().from(accounts).where(eq(accounts.id, account.id));
    expect(after!.earlyAccess).toBe(false);
    expect(
      await app.db.select().from(accountAuditLog).where(eq(accountAuditLog.accountId, account.id)),
    ).toEqual([]);
  });
});
