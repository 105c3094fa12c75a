import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../server/accounts/accounts';
import { INVALID_RESET_LINK } from '../../server/auth/password-reset';
import { RESET_LIMITS } from '../../server/auth/throttle-attempts';
import { accountTokens, emails, jobs } from '../../server/db/schema';
import { claimJobs, failJob, MAX_JOB_ATTEMPTS } from '../../server/jobs/jobs';
import { BrowserSession, trpcError } from '../support/browser-session';
import { capturedLogLines } from '../support/captured-logs';
import { linkIn, startSmtpCapture } from '../support/smtp-capture';
import { startTestApp, type TestApp } from '../support/test-app';

// "Forgot password?" does the same work for every address before it answers: it counts the
// throttles and queues a job holding the address. Whether the address has an account is found
// out by the job, after the answer. No worker runs in this app, so what the request did is seen
// before anything runs the job; the cron route then runs it, as Vercel Cron would.

const CRON_SECRET = 'cron-secret-for-reset-tests';
const PASSWORD = 'quiet-harbor-lantern-71';
const NEW_PASSWORD = 'velvet-canyon-orchid-58';
const RESET_SUBJECT = 'Reset your Meeting Notes password';
const TOO_MANY =
  /^Too many reset requests from here or for this address\. Please try again in \d+ minutes\.$/;

let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let app: TestApp;
let serial = 0;
const uniqueEmail = (tag: string) => `${tag}-${++serial}-${Date.now()}@example.com`;
const client = () => `198.51.100.${++serial % 250}`;
const browser = (address = client()) => new BrowserSession(app.url, { 'x-forwarded-for': address });

beforeAll(async () => {
  smtp = await startSmtpCapture();
  // The throttles' clock stands in the middle of an hour, so a run of requests never straddles
  // the edge of their one-hour window, however long the run takes.
  const hour = 3_600_000;
  const midHour = new Date(Math.floor(Date.now() / hour) * hour + hour / 2);
  app = await startTestApp({
    now: () => midHour,
    env: {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      EMAIL_FROM: 'Meeting Notes <no-reply@example.com>',
      NEXTAUTH_URL: 'http://notes.example.test',
      CRON_SECRET,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const resetMailsTo = (address: string) =>
  smtp.mails.filter((m) => m.to.includes(address) && m.subject === RESET_SUBJECT);
const queued = () => app.db.select().from(jobs);
const resetTokens = (accountId: string) =>
  app.db
    .select()
    .from(accountTokens)
    .where(and(eq(accountTokens.accountId, accountId), eq(accountTokens.purpose, 'reset_password')));

async function runCron() {
  const res = await app.request('/api/cron/dispatch', {
    method: 'POST',
    headers: { authorization: `Bearer ${CRON_SECRET}` },
  });
  expect(res.status).toBe(200);
  return res.json as { jobs_done: number; jobs_retried: number; jobs_failed: number };
}

/** Runs the cron route until the queue is empty; the counts of all its runs. */
async function drain() {
  const total = { jobs_done: 0, jobs_retried: 0, jobs_failed: 0 };
  for (let run = 0; run < 20 && (await queued()).length > 0; run++) {
    const counts = await runCron();
    for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += counts[key];
  }
  expect(await queued()).toEqual([]);
  return total;
}

const ask = (email: string, from = browser()) => from.mutate('account.requestPasswordReset', { email });

describe('forgot password: the request queues the work, the job decides', () => {
  it('an address without an account: the same answer, a job holding only the address; the job drops it: no mail, no job left', async () => {
    const nobody = uniqueEmail('nobody');
    const res = await ask(nobody);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ result: { data: { checkEmail: true } } });
    expect(await queued()).toEqual([
      expect.objectContaining({
        kind: 'send_password_reset',
        email: nobody,
        accountId: null,
        meetingId: null,
        attempts: 0,
      }),
    ]);

    expect(await runCron()).toMatchObject({ jobs_done: 1, jobs_retried: 0, jobs_failed: 0 });
    // The cron route answers once the job is done: its row is gone and it sent nothing.
    expect(await queued()).toEqual([]);
    expect(resetMailsTo(nobody)).toEqual([]);
    expect(smtp.mails.filter((m) => m.to.includes(nobody))).toEqual([]);
  });

  it('an address with an account: the answer comes before the account is looked up; the job emails a link that works once', async () => {
    const email = uniqueEmail('known');
    const account = await createAccount(app.db, { email, password: PASSWORD });
    const res = await ask(email.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ result: { data: { checkEmail: true } } });
    // Exactly what an unknown address leaves: a job with the address as asked, no account, no
    // link issued, nothing sent.
    expect(await queued()).toEqual([
      expect.objectContaining({ kind: 'send_password_reset', email: email.toUpperCase(), accountId: null }),
    ]);
    expect(await resetTokens(account.id)).toEqual([]);
    expect(resetMailsTo(email)).toEqual([]);

    expect(await runCron()).toMatchObject({ jobs_done: 1, jobs_retried: 0, jobs_failed: 0 });
    const mail = await vi.waitFor(
      () => {
        const found = resetMailsTo(email).at(-1);
        if (!found) throw new Error(`no reset mail to ${email}`);
        return found;
      },
      { timeout: 15_000, interval: 20 },
    );
    expect(mail.to).toEqual([email]);
    expect(await queued()).toEqual([]);
    const link = linkIn(mail, '/reset-password');
    expect(link.origin).toBe('http://notes.example.test');
    // The email is kept on the account, as every email it is sent is.
    const kept = await app.db.select().from(emails).where(eq(emails.accountId, account.id));
    expect(kept.map((e) => e.subject)).toEqual([RESET_SUBJECT]);

    const token = link.searchParams.get('token') ?? '';
    const reset = await browser().mutate('account.resetPassword', { token, password: NEW_PASSWORD });
    expect(reset.status).toBe(200);
    expect(reset.json).toEqual({ result: { data: { email } } });
    expect((await browser().signIn(email, NEW_PASSWORD)).status).toBe(200);
    const twice = await browser().mutate('account.resetPassword', { token, password: PASSWORD });
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual(trpcError('BAD_REQUEST', 400, 'account.resetPassword', INVALID_RESET_LINK));
  });

  it('two requests, two links: the later one retires the earlier, which no longer works', async () => {
    const email = uniqueEmail('twice');
    await createAccount(app.db, { email, password: PASSWORD });
    expect((await ask(email)).status).toBe(200);
    expect(await runCron()).toMatchObject({ jobs_done: 1 });
    expect((await ask(email)).status).toBe(200);
    expect(await runCron()).toMatchObject({ jobs_done: 1 });
    const mails = await vi.waitFor(
      () => {
        const found = resetMailsTo(email);
        if (found.length < 2) throw new Error(`${found.length} reset mails to ${email}`);
        return found;
      },
      { timeout: 15_000, interval: 20 },
    );
    const [first, second] = mails.map((m) => linkIn(m, '/reset-password').searchParams.get('token') ?? '');
    expect(second).not.toBe(first);
    const stale = await browser().mutate('account.resetPassword', { token: first, password: NEW_PASSWORD });
    expect(stale.status).toBe(400);
    expect(stale.json.error.message).toBe(INVALID_RESET_LINK);
    const fresh = await browser().mutate('account.resetPassword', { token: second, password: NEW_PASSWORD });
    expect(fresh.status).toBe(200);
  });

  it('the throttle per address counts an address with an account and one without alike: the 6th answers 429 and queues nothing', async () => {
    const known = uniqueEmail('flood-known');
    await createAccount(app.db, { email: known, password: PASSWORD });
    const nobody = uniqueEmail('flood-nobody');
    for (const email of [known, nobody]) {
      for (let i = 0; i < RESET_LIMITS.perEmail; i++) expect((await ask(email)).status).toBe(200);
      const refused = await ask(email);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual(
        trpcError('TOO_MANY_REQUESTS', 429, 'account.requestPasswordReset', expect.stringMatching(TOO_MANY)),
      );
      expect((await queued()).filter((j) => j.email === email)).toHaveLength(RESET_LIMITS.perEmail);
    }

    expect(await drain()).toEqual({ jobs_done: 2 * RESET_LIMITS.perEmail, jobs_retried: 0, jobs_failed: 0 });
    expect(resetMailsTo(nobody)).toEqual([]);
    expect(resetMailsTo(known)).toHaveLength(RESET_LIMITS.perEmail);
  });

  it('the throttle per client: the 21st request from one client answers 429 and queues nothing', async () => {
    const from = client();
    for (let i = 0; i < RESET_LIMITS.perAddress; i++)
      expect((await ask(uniqueEmail('from-one-client'), browser(from))).status).toBe(200);
    const last = uniqueEmail('from-one-client');
    const refused = await ask(last, browser(from));
    expect(refused.status).toBe(429);
    expect(refused.json.error.message).toMatch(TOO_MANY);
    expect((await queued()).filter((j) => j.email === last)).toEqual([]);
    // Another client is not held back by this one.
    expect((await ask(last)).status).toBe(200);

    expect(await drain()).toEqual({
      jobs_done: RESET_LIMITS.perAddress + 1,
      jobs_retried: 0,
      jobs_failed: 0,
    });
  });

  it('a failed run is retried with the queue’s backoff; a job given up is deleted with the address it held', async () => {
    const email = uniqueEmail('retry');
    expect((await ask(email)).status).toBe(200);
    const [job] = await claimJobs(app.db, 10);
    expect(job).toMatchObject({ kind: 'send_password_reset', email, attempts: 1 });
    expect(await failJob(app.db, job!, new Error('SMTP server unavailable'))).toBe('retry');
    const [row] = await queued();
    expect(row).toMatchObject({ id: job!.id, email, lastError: 'SMTP server unavailable', failedAt: null });
    expect(row!.dueAt.getTime()).toBeGreaterThan(Date.now() + 5_000);
    expect(await claimJobs(app.db, 10)).toEqual([]);

    expect(
      await failJob(app.db, { ...job!, attempts: MAX_JOB_ATTEMPTS }, new Error('still unavailable')),
    ).toBe('failed');
    expect(await queued()).toEqual([]);
  });

  it('no log line names the address asked for: requests with and without an account, a throttled one, and the job that sends the link, at debug level', async () => {
    const known = uniqueEmail('logged-known');
    await createAccount(app.db, { email: known, password: PASSWORD });
    const nobody = uniqueEmail('logged-nobody');
    const lines = await capturedLogLines(async () => {
      for (let i = 0; i <= RESET_LIMITS.perEmail; i++) await ask(known);
      expect((await ask(nobody)).status).toBe(200);
      expect(await drain()).toMatchObject({ jobs_done: RESET_LIMITS.perEmail + 1 });
    });
    expect(resetMailsTo(known)).toHaveLength(RESET_LIMITS.perEmail);
    const logged = lines.join('\n').toLowerCase();
    for (const address of [known, nobody]) {
      expect(logged).not.toContain(address.toLowerCase());
      expect(logged).not.toContain(address.split('@')[0]!.toLowerCase());
    }
  });
});
