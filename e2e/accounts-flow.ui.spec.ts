import type { Browser, BrowserContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { linkPathIn } from '../test/support/smtp-capture';
import { DESKTOP, graveViolations, PHONE } from './axe';
import { mailTo } from './mailbox';
import { shot } from './screenshots';

// Verification, early access and password reset, in Chromium against `npm start` with a real SMTP
// server on 127.0.0.1 (e2e/start-server.ts): sign-up → verify by the emailed link → request early
// access → the operator (ADMIN_EMAILS=operator@e2e.test) grants it → the first /v1 call succeeds;
// forgot password → reset → the account's other sessions end. Every new page is checked with axe
// (no serious or critical violation) at 1280 px and at a 390 px phone, and photographed.

const OPERATOR = 'operator@e2e.test';
const PASSWORD = 'quiet harbor lantern 71';
const NEW_PASSWORD = 'velvet canyon orchid 58';

test.describe.configure({ mode: 'serial' });

/** axe at 1280 px and at 390 px: no serious or critical violation, and nothing wider than the phone. */
async function checkAccessible(page: Page, label: string) {
  expect(await graveViolations(page, label)).toEqual([]);
  await page.setViewportSize(PHONE);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `${label} is no wider than the phone`).toBeLessThanOrEqual(PHONE.width);
  await page.setViewportSize(DESKTOP);
}

async function newBrowser(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP });
  return { context, page: await context.newPage() };
}

async function signUp(page: Page, email: string, name: string) {
  await page.goto('/sign-up');
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
}

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Opens an emailed link as its reader would, and checks that its token went nowhere else: the
 * page answers with `Referrer-Policy: no-referrer`, and none of the requests it makes while the
 * token is in its address (scripts, styles, data, the tRPC call) carries it in Referer.
 */
async function openEmailedLink(page: Page, path: string, opened: () => Promise<void>) {
  const token = new URL(path, 'http://x').searchParams.get('token') ?? '';
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const referers: string[] = [];
  const record = (request: { headers(): Record<string, string> }) => {
    const referer = request.headers().referer;
    if (referer) referers.push(referer);
  };
  page.on('request', record);
  const response = await page.goto(path);
  expect(response?.headers()['referrer-policy']).toBe('no-referrer');
  await opened();
  // The token is gone from the address bar once read. The page shows before it hydrates, and the
  // token is removed on hydration: wait for that, then stop recording the requests made meanwhile.
  await expect.poll(() => new URL(page.url()).search).toBe('');
  page.off('request', record);
  expect(referers.filter((r) => r.includes(token))).toEqual([]);
}

/** Opens the welcome email's link, as its reader would. */
async function verifyByEmailedLink(page: Page, email: string) {
  const welcome = await mailTo(email, 'Welcome to Meeting Notes');
  await openEmailedLink(page, linkPathIn(welcome, '/verify-email'), () =>
    expect(page.getByTestId('email-verified')).toContainText(email),
  );
}

test('sign up → verify by the emailed link → request early access → the operator grants it → the first /v1 call succeeds', {
  tag: '@any-database',
}, async ({ browser, request }) => {
  // The operator signs up and proves the address like anyone: ADMIN_EMAILS alone is not enough.
  const operator = await newBrowser(browser);
  await signUp(operator.page, OPERATOR, 'Olga Operator');
  await signIn(operator.page, OPERATOR);
  await operator.page.waitForURL('**/notes');
  await operator.page.goto('/admin');
  await expect(operator.page.getByRole('main').getByRole('alert')).toContainText(
    'only for the addresses in ADMIN_EMAILS',
  );
  await verifyByEmailedLink(operator.page, OPERATOR);

  const owner = await newBrowser(browser);
  const { page } = owner;
  const email = `early-${Date.now()}@e2e.test`;
  await signUp(page, email, 'Erin Early');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/account**');
  // Unverified: signed in, told so, and unable to ask for early access yet.
  await expect(page.getByTestId('email-status')).toHaveAttribute('data-verified', 'no');
  await expect(page.getByTestId('verify-banner')).toContainText('we send no webhook notices');
  await expect(page.getByTestId('request-early-access')).toBeDisabled();
  await page.goto('/account');
  await expect(page.getByTestId('verify-banner')).toBeVisible();
  // The welcome email is listed, but its link is only in the mailbox.
  const welcomeRow = page.getByTestId('email-row').filter({ hasText: 'Welcome to Meeting Notes' });
  await expect(welcomeRow.getByTestId('email-mailbox-only')).toBeVisible();
  await expect(welcomeRow.getByText('Show message')).toHaveCount(0);
  expect(await page.content()).not.toContain('token=');
  await shot(page, 'account-unverified');
  await checkAccessible(page, '/account (unverified)');

  // A key made now answers 403 until early access.
  await page.goto('/keys');
  await page.getByLabel('Name', { exact: true }).fill('first key');
  await page
    .getByTestId('create-key-form')
    .getByRole('button', { name: /create key/i })
    .click();
  const key = (await page.getByTestId('shown-once-value').textContent())?.trim() ?? '';
  expect(key).toMatch(/^mnk_[0-9A-Za-z]{40}$/);
  const auth = { authorization: `Bearer ${key}` };
  expect((await request.get('/v1/notes', { headers: auth })).status()).toBe(403);

  await verifyByEmailedLink(page, email);
  await shot(page, 'verify-email');
  await checkAccessible(page, '/verify-email');
  await page.getByRole('link', { name: 'Go to your account' }).click();
  await page.waitForURL('**/account');
  await expect(page.getByTestId('email-status')).toHaveAttribute('data-verified', 'yes');
  await expect(page.getByTestId('verify-banner')).toHaveCount(0);

  await page.getByTestId('request-early-access').click();
  await expect(page.getByTestId('early-access-requested')).toContainText('The operators have been told');
  await shot(page, 'account-early-access-requested');
  await checkAccessible(page, '/account (early access requested)');

  // The operators' email names the account and links to it in the console.
  const told = await mailTo(OPERATOR, `Early access requested by ${email}`);
  const consoleLink = /https?:\/\/\S+(\/admin\/accounts\/[0-9a-f-]{36})/.exec(told.text)?.[1];
  expect(consoleLink, told.text).toBeTruthy();

  const op = operator.page;
  await op.goto('/admin');
  const row = op.getByTestId('console-account-row').filter({ hasText: email });
  await expect(row).toContainText('Requested');
  await expect(row).toContainText('Free');
  await expect(row).toContainText(/1 \/ 100/); // the 403 above counted
  // Open requests come first.
  await expect(op.getByTestId('console-account-row').first()).toContainText(email);
  await shot(op, 'admin-console');
  await checkAccessible(op, '/admin');

  await op.goto(consoleLink!);
  await expect(op.getByTestId('console-early-access')).toHaveAttribute('data-early-access', 'no');
  await op.getByTestId('grant-early-access').click();
  await expect(op.getByTestId('console-early-access')).toHaveAttribute('data-early-access', 'yes');
  const entry = op.getByTestId('audit-entry').first();
  await expect(entry).toHaveAttribute('data-action', 'early_access.grant');
  await expect(entry).toContainText('Granted early access');
  await expect(entry).toContainText(`by ${OPERATOR}`);
  await shot(op, 'admin-account');
  await checkAccessible(op, '/admin/accounts/[id]');

  // The first /v1 call with the key succeeds, and the owner was told.
  expect((await request.get('/v1/notes', { headers: auth })).status()).toBe(200);
  await mailTo(email, 'Your Meeting Notes account has early access');
  await page.goto('/account');
  await expect(page.getByTestId('early-access-status')).toHaveAttribute('data-early-access', 'yes');

  // Someone who is not an operator is turned away from the console, and is never shown any of it
  // (its account search, its "Create an account" form), not even while the page asks the server.
  await page.addInitScript(() => {
    const seen = window as unknown as { consoleShown?: boolean };
    new MutationObserver(() => {
      if (document.body?.textContent?.includes('Search accounts')) seen.consoleShown = true;
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  await page.goto('/admin');
  await expect(page.getByRole('main').getByRole('alert')).toContainText(
    'only for the addresses in ADMIN_EMAILS',
  );
  await expect(page.getByTestId('console-account-row')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { consoleShown?: boolean }).consoleShown ?? false),
  ).toBe(false);

  await operator.context.close();
  await owner.context.close();
});

test('forgot password → the emailed link → a new password; every other session ends', {
  tag: '@any-database',
}, async ({ browser }) => {
  const email = `forgetful-${Date.now()}@e2e.test`;
  const laptop = await newBrowser(browser);
  await signUp(laptop.page, email, 'Fern Forgetful');
  await signIn(laptop.page, email);
  await laptop.page.waitForURL('**/notes');
  const phone = await newBrowser(browser);
  await signIn(phone.page, email);
  await phone.page.waitForURL('**/notes');

  const { context, page } = await newBrowser(browser);
  await page.goto('/sign-in');
  await checkAccessible(page, '/sign-in');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.waitForURL('**/forgot-password');
  await shot(page, 'forgot-password');
  await checkAccessible(page, '/forgot-password');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await expect(page.getByTestId('reset-sent')).toContainText(email);

  const mail = await mailTo(email, 'Reset your Meeting Notes password');
  await openEmailedLink(page, linkPathIn(mail, '/reset-password'), () =>
    expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible(),
  );
  await shot(page, 'reset-password');
  await checkAccessible(page, '/reset-password');
  // A weak password is refused with the policy's words, and the link still works after.
  await page.getByLabel('New password').fill('aaaaaaaaaaaa');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByRole('main').getByRole('alert')).toBeVisible();
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await page.waitForURL('**/sign-in?reset=1');
  await expect(page.getByTestId('password-changed')).toBeVisible();

  // The sessions signed in with the old password have ended.
  for (const other of [laptop.page, phone.page]) {
    await other.goto('/account');
    await other.waitForURL('**/sign-in?callbackUrl=%2Faccount');
  }
  await signIn(laptop.page, email, PASSWORD);
  await expect(laptop.page.getByRole('main').getByRole('alert')).toContainText('do not match');
  await signIn(page, email, NEW_PASSWORD);
  await page.waitForURL('**/notes');
  // Opening the reset link proved the address too.
  await page.goto('/account');
  await expect(page.getByTestId('email-status')).toHaveAttribute('data-verified', 'yes');

  await context.close();
  await laptop.context.close();
  await phone.context.close();
});
