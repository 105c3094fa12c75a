import type { Page } from '@playwright/test';
import { DESKTOP, PHONE } from './axe';
import { expectNotClipped } from './clipping';
import { expect, test } from './fixtures';
import { shot } from './screenshots';
import { demoLogin, readState } from './state';
import { recordNote } from '../test/support/recorder';
import { Receiver } from '../test/support/webhook-receiver';

// The settings app end to end, in Debian's Chromium against `npm start`: sign up, keys, webhooks
// with a real receiver on 127.0.0.1, deactivation and re-enable, notes search and delete. Each page
// is photographed (e2e/screenshots.ts); the webhook pages' pictures in
// docs/settings-app.md#screenshots, but for the list on a phone, are taken by the owner's whole
// journey in e2e/webhooks-journey.ui.spec.ts.

const state = readState();

async function signIn(page: Page, email: string, password: string) {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/notes');
}

test.describe.configure({ mode: 'serial' });

test('sign up; the account explains it has no early access, and its key gets 403 from /v1', {
  tag: '@any-database',
}, async ({ page, request }) => {
  await page.goto('/sign-up');
  await shot(page, 'sign-up');
  const email = `owner-${Date.now()}@example.com`;
  await page.getByLabel('Name').fill('New Owner');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  // The answer does not say whether the address was taken; a new one signs in.
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/account**');
  await expect(page.getByTestId('early-access-status')).toContainText('No early access');

  await page.goto('/keys');
  await page.getByLabel('Name', { exact: true }).fill('First key');
  await page
    .getByTestId('create-key-form')
    .getByRole('button', { name: /create/i })
    .click();
  const key = (await page.getByTestId('shown-once-value').textContent())!.trim();
  const res = await request.get('/v1/notes', { headers: { authorization: `Bearer ${key}` } });
  expect(res.status()).toBe(403);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/sign-in');
});

test('create a key, call /v1 with it (200), revoke it (401)', { tag: '@any-database' }, async ({
  page,
  request,
}) => {
  const demo = demoLogin(state);
  await signIn(page, demo.email, demo.password);
  await page.goto('/keys');
  await page.getByLabel('Name', { exact: true }).fill('e2e key');
  await page
    .getByTestId('create-key-form')
    .getByRole('button', { name: /create/i })
    .click();
  const key = (await page.getByTestId('shown-once-value').textContent())!.trim();
  expect(key).toMatch(/^mnk_[0-9A-Za-z]{40}$/);
  expect((await request.get('/v1/notes', { headers: { authorization: `Bearer ${key}` } })).status()).toBe(
    200,
  );
  // The picture shows the settled page: the new key listed and the form ready for the next one.
  await expect(page.getByTestId('key-row').filter({ hasText: 'e2e key' })).toHaveCount(1, {
    timeout: 60_000,
  });
  await expect(
    page.getByTestId('create-key-form').getByRole('button', { name: /create key/i }),
  ).toBeEnabled();
  await shot(page, 'api-keys');

  const row = page.getByTestId('key-row').filter({ hasText: 'e2e key' }).first();
  const keyId = await row.getAttribute('data-key-id');
  await page.getByTestId(`revoke-key-${keyId}`).first().click();
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /revoke/i })
    .click();
  await expect(page.getByTestId('key-row').filter({ hasText: 'e2e key' })).toHaveCount(0);
  expect((await request.get('/v1/notes', { headers: { authorization: `Bearer ${key}` } })).status()).toBe(
    401,
  );
});

test('a webhook endpoint: test event in the log; a failing test never deactivates it, a real event failing four times does; re-enable; the next event arrives', {
  tag: '@any-database',
}, async ({ page, baseURL }) => {
  const receiver = await new Receiver().start();
  const hookUrl = `${receiver.base}/hooks`;
  try {
    const demo = demoLogin(state);
    await signIn(page, demo.email, demo.password);
    await page.goto('/webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel(/url/i).fill(hookUrl);
    await page
      .getByTestId('create-endpoint-form')
      .getByRole('button', { name: /add|create/i })
      .click();
    await expect(page.getByTestId('shown-once-value')).toContainText('whsec_');
    await page.getByRole('link', { name: 'Open it to send a test event' }).click();
    await page.waitForURL('**/webhooks/*');

    await page.getByTestId('send-test-event').click();
    await expect(page.getByTestId('delivery-row').first()).toHaveAttribute('data-state', 'succeeded');
    expect(receiver.received.length).toBe(1);

    // The receiver now fails: a test event, then a real one (a meeting recorded with the demo key, its transcript
    // making meeting.completed)
    // once the test's first attempt has arrived. Each gets four attempts (retry delays 4 s in this
    // run); the test fails first and changes nothing, the real event's fourth failure makes the
    // endpoint inactive, and the notice names that delivery, not the test's.
    receiver.defaultStatus = 500;
    await page.getByTestId('send-test-event').click();
    await expect.poll(() => receiver.received.length).toBe(2);
    await recordNote(baseURL!, demo.apiKey, { title: 'Deactivates the endpoint' });
    await expect(page.getByTestId('endpoint-status')).toHaveText('Inactive', { timeout: 45_000 });
    await page.reload();
    const failed = page.locator('[data-testid="delivery-row"][data-state="failed"]');
    await expect(failed).toHaveCount(2);
    await expect(page.locator('[data-testid="delivery-row"][data-state="succeeded"]')).toHaveCount(1);
    // The real event's row is the failed one without the "test" badge.
    const real = failed.filter({ hasNot: page.getByText('test', { exact: true }) });
    await expect(real).toHaveCount(1);
    const realId = (await real.getAttribute('data-delivery-id'))!;
    await expect(page.getByTestId('inactive-notice')).toContainText(
      `after all 4 attempts of delivery ${realId.slice(0, 8)}`,
    );
    await expect(page.getByTestId('deactivation-error')).toHaveText('HTTP 500');
    for (const row of await failed.all()) {
      await row.getByRole('button', { name: /details$/ }).click();
      await expect(row.getByTestId('attempt-row')).toHaveCount(4);
      await expect(row.locator('[data-testid="attempt-row"][data-success="false"]')).toHaveCount(4);
    }
    const attemptsWhileFailing = receiver.received.length;
    expect(attemptsWhileFailing).toBe(9);

    receiver.defaultStatus = 200;
    await page.getByTestId('reenable-endpoint').click();
    await expect(page.getByTestId('endpoint-status')).toHaveText('Active');
    await page.getByTestId('send-test-event').click();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(attemptsWhileFailing + 1);

    await page.goto('/webhooks');
    await expect(
      page.getByTestId('endpoint-row').filter({ hasText: hookUrl }).getByTestId('endpoint-status'),
    ).toHaveText('Active');

    await page.goto('/account');
    await expect(page.getByTestId('email-row').first()).toContainText(/deactivated/i);
    await shot(page, 'account');
  } finally {
    await receiver.close();
  }
});

test('search notes, open the hit at its moment, delete the note', { tag: '@any-database' }, async ({
  page,
  request,
}) => {
  const demo = demoLogin(state);
  await signIn(page, demo.email, demo.password);
  await expect(page.getByTestId('note-row').first()).toBeVisible();
  await shot(page, 'notes');
  await page.getByLabel('Search your meetings').fill('postgres failover took eleven minutes');
  await page.getByLabel('Search your meetings').press('Enter');
  const hit = page.getByTestId('search-result').first();
  await expect(hit).toContainText(/failover/i);
  await shot(page, 'notes-search');
  const noteId = await hit.getAttribute('data-note-id');
  await hit.getByRole('link').first().click();
  await page.waitForURL(`**/notes/${noteId}**`);
  await expect(page.getByTestId('note-summary')).toBeVisible();
  // The note's id, the one the API and the webhook payloads name it by, with a button that copies it.
  await expect(page.getByTestId('note-id')).toHaveText(noteId!);
  await shot(page, 'note');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy ID' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(noteId);

  await page.getByTestId('delete-note').click();
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /delete/i })
    .click();
  await page.waitForURL('**/notes');
  const gone = await request.get(`/v1/notes/${noteId}`, {
    headers: { authorization: `Bearer ${demo.apiKey}` },
  });
  expect(gone.status()).toBe(404);
});

test('the API reference renders both forms; pages fit a phone screen', {
  tag: '@any-database',
}, async ({ page }) => {
  await page.goto('/docs');
  await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
  await shot(page, 'api-reference');
  await page.getByTestId('form-switch-B').click();
  await expect(page.getByTestId('api-reference')).toContainText('deliveries');

  const demo = demoLogin(state);
  await page.setViewportSize({ width: 375, height: 760 });
  await signIn(page, demo.email, demo.password);
  await page.goto('/webhooks');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await shot(page, 'webhooks-phone');
});

test('the key form’s selects and the API reference’s form tabs are not cut off, at 1280 px and on a 390 px phone', {
  tag: '@any-database',
}, async ({ page }) => {
  const demo = demoLogin(state);
  await signIn(page, demo.email, demo.password);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    const at = `at ${viewport.width} px`;

    await page.goto('/keys');
    const keyForm = page.getByTestId('create-key-form');
    await expectNotClipped(
      keyForm.getByLabel('Form', { exact: true }),
      keyForm,
      `the key's Form select ${at}`,
    );
    await expectNotClipped(keyForm.getByLabel('Expires'), keyForm, `the key's Expires select ${at}`);

    await page.goto('/docs');
    await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
    const tabs = page.getByRole('group', { name: 'API form' });
    for (const chosen of ['A', 'B'] as const) {
      await page.getByTestId(`form-switch-${chosen}`).click();
      await expect(page.getByTestId(`form-switch-${chosen}`)).toHaveAttribute('aria-pressed', 'true');
      for (const form of ['A', 'B'] as const)
        await expectNotClipped(page.getByTestId(`form-switch-${form}`), tabs, `the Form ${form} tab ${at}`);
    }
    if (viewport === PHONE) await shot(page, 'api-reference-phone', { fullPage: false });
  }
});
