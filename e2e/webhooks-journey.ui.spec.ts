import { createHmac } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { shot, shotOf } from './screenshots';
import { demoLogin, readState } from './state';
import { recordNote } from '../test/support/recorder';
import { type Received, Receiver } from '../test/support/webhook-receiver';

// Webhooks end to end, in Debian's Chromium against `npm start`: the owner of a webhook endpoint
// goes through everything the endpoint page offers, against a real receiver on 127.0.0.1 (the
// e2e server allows private URLs and retries 4 s apart, e2e/start-server.ts). Then every settings
// page is checked to fit a phone screen. The webhook pictures of docs/settings-app.md#screenshots
// come from here (all but the list on a phone).

const state = readState();
const PHONE = { width: 390, height: 844 };

/** The endpoint the journey made, for the phone test to show (it makes its own when run alone). */
let journeyEndpointId: string | undefined;

async function signIn(page: Page, landing: Parameters<Page['waitForURL']>[0] = '**/notes') {
  const demo = demoLogin(state);
  await page.getByLabel('Email').fill(demo.email);
  await page.getByLabel('Password').fill(demo.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(landing);
}

const rows = (page: Page) => page.getByTestId('delivery-row');
const row = (page: Page, deliveryId: string) =>
  page.locator(`[data-testid="delivery-row"][data-delivery-id="${deliveryId}"]`);
const rowStates = (page: Page) =>
  rows(page).evaluateAll((els) => els.map((el) => el.getAttribute('data-state')));
const rowIds = (page: Page) =>
  rows(page).evaluateAll((els) => els.map((el) => el.getAttribute('data-delivery-id')));
const header = (r: Received, name: string) => String(r.headers[name.toLowerCase()] ?? '');

/** Waits until the receiver has had `count` requests; the newest of them. */
async function nthRequest(receiver: Receiver, count: number): Promise<Received> {
  await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
  return receiver.received[count - 1]!;
}

// The two signature schemes, computed here from the secrets the page showed (not with the
// server's own code): Stripe's (X-Service-Signature) and Standard Webhooks'
// (docs/rules.md#signatures-and-headers).
const stripeV1 = (secret: string, t: string, body: string) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${body}`, 'utf8').digest('hex');
const standardV1 = (secret: string, id: string, t: string, body: string) =>
  createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${t}.${body}`, 'utf8')
    .digest('base64');

/** Waits until the delivery log shows the rows of its current filters (not the previous ones, dimmed). */
async function settle(page: Page) {
  await expect(
    page.getByRole('list', { name: 'Deliveries' }).or(page.getByText(/^No deliver/)),
  ).toBeVisible();
  await expect(page.locator('ul[aria-label="Deliveries"][aria-busy="true"]')).toHaveCount(0);
}

test('an endpoint owner’s journey: failure, retries, deactivation, re-enable, recover, rotate, edit, details, filters, health', {
  tag: '@any-database',
}, async ({ page, baseURL }) => {
  const demo = demoLogin(state);
  test.setTimeout(240_000);
  const receiver = await new Receiver().start();
  const hookUrl = `${receiver.base}/hooks`;
  try {
    // Signed out, the endpoint list asks to sign in and comes back to it.
    await page.goto('/webhooks');
    await page.waitForURL('**/sign-in?callbackUrl=%2Fwebhooks');
    await signIn(page, (url) => url.pathname === '/webhooks');

    // The list comes first, with "Add endpoint" as its action; the form is in a dialog it opens.
    await expect(page.getByRole('heading', { level: 2, name: 'Endpoints' })).toBeVisible();
    await expect(page.getByTestId('create-endpoint-form')).toHaveCount(0);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const addDialog = page.getByRole('dialog', { name: 'Add an endpoint' });
    await expect(addDialog.getByTestId('create-endpoint-form')).toBeVisible();
    // The URL hint tells what this server accepts: the e2e server allows private and http:// URLs.
    await expect(addDialog.getByLabel('Endpoint URL')).toHaveAccessibleDescription(
      /https:\/\/ or http:\/\/.*private networks and loopback/,
    );
    await expect(addDialog).not.toContainText('refused');

    // An endpoint with a description and two events; the secret is shown once.
    await page.getByLabel('Endpoint URL').fill(hookUrl);
    await page.getByLabel('Description (optional)').fill('CRM sync (staging)');
    await page.getByTestId('create-endpoint-form').getByLabel('summary.ready').click();
    await shot(page, 'webhook-add-endpoint', { fullPage: false });
    await page.getByTestId('create-endpoint-form').getByRole('button', { name: 'Create endpoint' }).click();
    const firstSecret = (await page.getByTestId('shown-once-value').textContent())!.trim();
    expect(firstSecret).toMatch(/^whsec_/);
    await page.getByRole('link', { name: 'Open it to send a test event' }).click();
    await page.waitForURL(/\/webhooks\/[0-9a-f-]{36}$/);
    const endpointId = new URL(page.url()).pathname.split('/').at(-1)!;
    const endpointPath = `/webhooks/${endpointId}`;
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(hookUrl);
    await expect(page.getByTestId('endpoint-description')).toHaveText('CRM sync (staging)');
    await expect(page.getByTestId('endpoint-status')).toHaveText('Active');
    await expect(page.getByText('No deliveries yet')).toBeVisible();

    // The receiver fails; a meeting recorded meanwhile (its transcript makes meeting.completed; a
    // failing test event would never deactivate the endpoint) is retried (4 s apart in this run)…
    receiver.defaultStatus = 500;
    await recordNote(baseURL!, demo.apiKey, { title: 'Outage review' });
    const failing = rows(page).first();
    await expect(failing).toHaveAttribute('data-state', 'retrying', { timeout: 30_000 });
    await expect(failing.getByTestId('delivery-state')).toContainText(
      /Retrying\s*next attempt (in \d+ s|due now)/,
    );
    const failedId = (await failing.getAttribute('data-delivery-id'))!;
    // The health, re-read on its own, catches up with the failed attempt before the picture.
    await expect(page.getByTestId('health-last-error')).toContainText('HTTP 500');
    await expect(row(page, failedId)).toHaveAttribute('data-state', 'retrying', { timeout: 1_000 });
    await shot(page, 'webhook-retrying');

    // …four attempts in all, then it fails and the endpoint is deactivated, the banner
    // naming the delivery and how its last attempt failed.
    await expect(row(page, failedId)).toHaveAttribute('data-state', 'failed', { timeout: 45_000 });
    await expect(page.getByTestId('endpoint-status')).toHaveText('Inactive', { timeout: 15_000 });
    expect(receiver.received.map((r) => r.status)).toEqual([500, 500, 500, 500]);
    expect(new Set(receiver.received.map((r) => header(r, 'webhook-id')))).toEqual(new Set([failedId]));
    const notice = page.getByTestId('inactive-notice');
    await expect(notice).toContainText('Deliveries are stopped');
    await expect(notice).toContainText(
      `after all 4 attempts of delivery ${failedId.slice(0, 8)} Copy (meeting.completed) failed; last error: HTTP 500`,
    );
    await expect(page.getByTestId('deactivation-error')).toHaveText('HTTP 500');
    await expect(row(page, failedId)).toContainText('Attempts4 of 4');
    await expect(page.getByTestId('send-test-event')).toBeDisabled();
    await expect(page.getByTestId('recover-deliveries')).toBeDisabled();
    await expect(page.getByTestId('health-last-error')).toContainText('HTTP 500');
    await shot(page, 'webhook-endpoint-inactive');

    // The receiver is fixed; re-enabling offers to recover what failed during the outage.
    receiver.defaultStatus = 200;
    await page.getByTestId('reenable-endpoint').click();
    await expect(page.getByTestId('endpoint-status')).toHaveText('Active');
    await expect(page.getByTestId('inactive-notice')).toHaveCount(0);
    await expect(page.getByTestId('recover-hint')).toBeVisible();
    await page.getByTestId('recover-deliveries').click();
    const recoverDialog = page.getByTestId('recover-dialog');
    await expect(recoverDialog).toBeVisible();
    // The default is when the delivery that deactivated the endpoint was created (once known).
    await expect(recoverDialog).toContainText(
      'Set to when the delivery that deactivated the endpoint was created.',
    );
    await expect(page.getByTestId('recover-since')).toHaveValue(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    await page.getByTestId('confirm-recover').click();
    await expect(page.getByTestId('recover-result')).toContainText('Queued 1 delivery');
    await recoverDialog.getByRole('button', { name: 'Close' }).click();
    await expect(recoverDialog).toHaveCount(0);
    await expect(page.getByTestId('recover-hint')).toHaveCount(0);
    await expect(page.getByTestId('endpoint-action-status')).toHaveText('Queued 1 delivery');
    const recovered = await nthRequest(receiver, 5);
    const recoveredId = header(recovered, 'webhook-id');
    expect(recoveredId).not.toBe(failedId);
    expect(recovered.body).toBe(receiver.received[0]!.body);
    await expect(row(page, recoveredId)).toHaveAttribute('data-state', 'succeeded', { timeout: 30_000 });
    await expect(row(page, failedId)).toHaveAttribute('data-state', 'failed');
    await expect(row(page, failedId)).toContainText(`Resent as${recoveredId.slice(0, 8)}`);
    await shot(page, 'webhook-recovered');

    // Rotating the secret with an hour's overlap: the new one is shown once, and until the hour
    // is up every delivery carries two signatures in each scheme, one per secret.
    await page.getByTestId('rotate-secret').click();
    await expect(page.getByRole('dialog', { name: 'Rotate the signing secret' })).toBeVisible();
    await expect(page.getByTestId('rotate-overlap')).toHaveValue('86400');
    await page.getByTestId('rotate-overlap').selectOption('3600');
    await page.getByTestId('confirm-rotate').click();
    const rotated = page.getByTestId('rotated-secret').getByTestId('shown-once-value');
    await expect(rotated).toHaveText(/^whsec_/);
    const newSecret = (await rotated.textContent())!.trim();
    expect(newSecret).not.toBe(firstSecret);
    await expect(page.getByRole('dialog', { name: 'New signing secret' })).toContainText(
      'The old secret keeps working until',
    );
    await shot(page, 'webhook-rotate', { fullPage: false });
    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(page.getByTestId('rotated-secret')).toHaveCount(0);
    await expect(page.getByTestId('previous-secret-notice')).toContainText('Previous secret valid until');

    await page.getByTestId('send-test-event').click();
    const signedTwice = await nthRequest(receiver, 6);
    const t = header(signedTwice, 'webhook-timestamp');
    const standard = header(signedTwice, 'webhook-signature').split(' ');
    expect(standard).toHaveLength(2);
    for (const entry of standard) expect(entry).toMatch(/^v1,/);
    expect(standard).toEqual([
      `v1,${standardV1(newSecret, header(signedTwice, 'webhook-id'), t, signedTwice.body)}`,
      `v1,${standardV1(firstSecret, header(signedTwice, 'webhook-id'), t, signedTwice.body)}`,
    ]);
    const stripe = header(signedTwice, 'X-Service-Signature');
    expect(stripe.match(/v1=/g)).toHaveLength(2);
    expect(stripe).toBe(
      `t=${t},v1=${stripeV1(newSecret, t, signedTwice.body)},v1=${stripeV1(firstSecret, t, signedTwice.body)}`,
    );

    // Editing the URL and description keeps the endpoint (its id, secret and history): the next
    // test event, of the other subscribed event, arrives at the new path.
    // The receiver has the third delivery; the page's list shows it at its next refresh.
    await expect.poll(async () => (await rowIds(page)).length, { timeout: 15_000 }).toBe(3);
    const rowsBeforeEdit = (await rowIds(page)).length;
    expect(rowsBeforeEdit).toBe(3);
    const movedUrl = `${receiver.base}/hooks/v2`;
    await page.getByTestId('edit-endpoint').click();
    const editDialog = page.getByTestId('edit-endpoint-dialog');
    await expect(page.getByTestId('edit-endpoint-url')).toHaveAccessibleDescription(/or http:\/\//);
    await expect(page.getByTestId('edit-endpoint-url')).toHaveValue(hookUrl);
    await page.getByTestId('edit-endpoint-url').fill(movedUrl);
    await page.getByTestId('edit-endpoint-description').fill('CRM sync (production)');
    await page.getByTestId('save-endpoint').click();
    await expect(editDialog).toHaveCount(0);
    await expect(page.getByTestId('endpoint-action-status')).toHaveText('Endpoint updated');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(movedUrl);
    await expect(page.getByTestId('endpoint-description')).toHaveText('CRM sync (production)');
    expect(new URL(page.url()).pathname).toBe(endpointPath);

    await page.getByTestId('test-event-type').selectOption('summary.ready');
    await page.getByTestId('send-test-event').click();
    const moved = await nthRequest(receiver, 7);
    expect(moved.path).toBe('/hooks/v2');
    expect(moved.event).toBe('summary.ready');
    expect(receiver.received.slice(0, 6).every((r) => r.path === '/hooks')).toBe(true);
    const movedId = header(moved, 'webhook-id');
    await expect(row(page, movedId)).toHaveAttribute('data-state', 'succeeded', { timeout: 30_000 });
    await page.reload();
    expect(new URL(page.url()).pathname).toBe(endpointPath);
    await expect.poll(() => rowIds(page)).toHaveLength(rowsBeforeEdit + 1);
    await expect(row(page, failedId)).toBeVisible();

    // A delivery opened: its payload and every attempt, with request headers and response.
    const failedRow = row(page, failedId);
    await failedRow
      .getByRole('button', { name: `meeting.completed delivery ${failedId.slice(0, 8)}, details` })
      .click();
    const details = failedRow.getByTestId('delivery-details');
    await expect(details).toContainText(`Delivery ${failedId}`);
    await expect(details.getByRole('region', { name: 'Payload' })).toContainText('Outage review');
    await expect(details.getByTestId('attempt-row')).toHaveCount(4);
    await expect(details.locator('[data-testid="attempt-row"][data-success="false"]')).toHaveCount(4);
    await expect(details.getByRole('region', { name: 'Request headers of attempt 1' })).toContainText(
      `webhook-id: ${failedId}`,
    );
    await expect(details.getByRole('region', { name: 'Response body of attempt 4' })).toContainText(
      '"received": false',
    );
    await shotOf(failedRow, 'webhook-delivery-details');
    await failedRow.getByRole('button', { name: /, details$/ }).click();
    await expect(details).toHaveCount(0);

    // The filters narrow the list, and the address keeps them.
    await page.getByTestId('delivery-state-filter').selectOption('failed');
    await expect.poll(() => rowStates(page)).toEqual(['failed']);
    await expect(page).toHaveURL(/[?&]state=failed(&|$)/);
    await page.getByTestId('delivery-state-filter').selectOption('succeeded');
    await expect.poll(() => rowStates(page)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    await page.getByTestId('delivery-state-filter').selectOption('all');
    await page.getByTestId('delivery-event-filter').selectOption('summary.ready');
    await expect.poll(() => rowIds(page)).toEqual([movedId]);
    await page.getByTestId('delivery-event-filter').selectOption('all');
    await page.getByTestId('delivery-range-filter').selectOption('1h');
    await expect.poll(() => rowIds(page)).toHaveLength(4);
    await page.getByTestId('delivery-range-filter').selectOption('all');
    await page.getByTestId('delivery-lookup').fill(recoveredId);
    await expect.poll(() => rowIds(page)).toEqual([recoveredId]);
    await expect(page).toHaveURL(new RegExp(`[?&]lookup=${recoveredId}`));
    // "Resent as" on the failed delivery shows the delivery it was resent as.
    await page.getByTestId('delivery-lookup').fill(failedId);
    await expect.poll(() => rowIds(page)).toEqual([failedId]);
    await row(page, failedId)
      .getByRole('button', { name: /^Resent as/ })
      .click();
    await expect(page.getByTestId('delivery-lookup')).toHaveValue(recoveredId);
    await expect.poll(() => rowIds(page)).toEqual([recoveredId]);
    await page.getByTestId('delivery-lookup').fill('');
    await expect.poll(() => rowIds(page)).toHaveLength(4);
    await settle(page);
    await expect(page).toHaveURL((url) => url.pathname === endpointPath && url.search === '');

    // The health: success rates, the last error, and attempts over time.
    await expect(page.getByTestId('health-day')).toContainText('7 attempts, 4 failed');
    await expect(page.getByTestId('health-day')).toContainText('42.9 %');
    await expect(page.getByTestId('health-last-error')).toContainText('HTTP 500');
    await expect(page.getByTestId('delivery-chart-summary')).toHaveText(
      '7 attempts in the last 24 hours: 3 succeeded, 4 failed',
    );
    await expect(page.getByTestId('delivery-chart').locator('.recharts-bar-rectangle').first()).toBeVisible();
    await page.getByTestId('delivery-chart-week').click();
    await expect(page.getByTestId('delivery-chart-summary')).toHaveText(
      '7 attempts in the last 7 days: 3 succeeded, 4 failed',
    );
    await page.getByTestId('delivery-chart-day').click();
    await shot(page, 'webhook-endpoint');

    // The list: each endpoint with its health.
    await page.getByRole('link', { name: '← Webhooks' }).click();
    await page.waitForURL((url) => url.pathname === '/webhooks');
    const listed = page.locator(`[data-testid="endpoint-row"][data-endpoint-id="${endpointId}"]`);
    await expect(listed).toContainText(movedUrl);
    await expect(listed.getByTestId('endpoint-description')).toHaveText('CRM sync (production)');
    await expect(listed.getByTestId('endpoint-status')).toHaveText('Active');
    await expect(listed.getByTestId('endpoint-success-day')).toHaveText('42.9 %');
    await expect(listed.getByTestId('endpoint-last-error')).toContainText('HTTP 500');
    await expect(listed.getByTestId('endpoint-last-delivery')).toContainText('200');
    await shot(page, 'webhooks');

    // Signed out, a link to the endpoint's filtered log signs in and comes back to it.
    await page.context().clearCookies();
    await page.goto(`${endpointPath}?state=failed`);
    await page.waitForURL(
      (url) =>
        url.pathname === '/sign-in' && url.searchParams.get('callbackUrl') === `${endpointPath}?state=failed`,
    );
    await signIn(page, (url) => url.pathname === endpointPath);
    expect(new URL(page.url()).searchParams.get('state')).toBe('failed');
    await expect(page.getByTestId('delivery-state-filter')).toHaveValue('failed');
    await expect.poll(() => rowIds(page)).toEqual([failedId]);
    journeyEndpointId = endpointId;
  } finally {
    await receiver.close();
  }
});

/**
 * The page is no wider than the screen. When it is, names the element reaching furthest right
 * (ignoring what sits inside a box that scrolls or clips on its own, which cannot widen the page).
 */
async function expectFitsPhone(page: Page, what: string) {
  const fit = await page.evaluate(() => {
    const clipped = (el: Element) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') return true;
      }
      return false;
    };
    let widest: Element | null = null;
    let right = Number.NEGATIVE_INFINITY;
    for (const el of document.body.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.right <= right || clipped(el)) continue;
      widest = el;
      right = box.right;
    }
    const describe = (el: Element | null) => {
      if (!el) return 'none';
      const id = el.id ? `#${el.id}` : '';
      const testId = el.getAttribute('data-testid')
        ? `[data-testid="${el.getAttribute('data-testid')}"]`
        : '';
      const cls =
        typeof el.className === 'string' && el.className
          ? `.${el.className.trim().split(/\s+/).slice(0, 6).join('.')}`
          : '';
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60);
      return `<${el.tagName.toLowerCase()}${id}${testId}${cls}> "${text}"`;
    };
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      widest: describe(widest),
      right: Math.round(right),
    };
  });
  expect(
    fit.scrollWidth,
    `${what} is ${fit.scrollWidth}px wide on a ${fit.innerWidth}px screen; widest: ${fit.widest}, right edge at ${fit.right}px`,
  ).toBeLessThanOrEqual(fit.innerWidth);
}

/** An endpoint of the demo account with a delivery or more: the journey's, else a new one. */
async function endpointWithDeliveries(page: Page): Promise<{ id: string; receiver?: Receiver }> {
  if (journeyEndpointId) return { id: journeyEndpointId };
  const receiver = await new Receiver().start();
  await page.goto('/webhooks');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByLabel('Endpoint URL').fill(`${receiver.base}/phone`);
  await page.getByLabel('Description (optional)').fill('Checked on a phone');
  await page.getByTestId('create-endpoint-form').getByRole('button', { name: 'Create endpoint' }).click();
  await page.getByRole('link', { name: 'Open it to send a test event' }).click();
  await page.waitForURL(/\/webhooks\/[0-9a-f-]{36}$/);
  await page.getByTestId('send-test-event').click();
  await expect(rows(page).first()).toHaveAttribute('data-state', 'succeeded', { timeout: 30_000 });
  return { id: new URL(page.url()).pathname.split('/').at(-1)!, receiver };
}

test.describe('on a phone', () => {
  test.use({ viewport: PHONE });

  test('every settings page fits a 390 px phone screen, the endpoint page with its dialogs open too', {
    tag: '@any-database',
  }, async ({ page }) => {
    test.setTimeout(180_000);
    await page.goto('/sign-in');
    await signIn(page);
    await expect(page.getByTestId('note-row').first()).toBeVisible();
    await expectFitsPhone(page, '/notes');

    await page.getByTestId('note-row').first().getByRole('link').first().click();
    await page.waitForURL(/\/notes\/.+/);
    await expect(page.getByTestId('note-summary')).toBeVisible();
    await expectFitsPhone(page, `note page ${new URL(page.url()).pathname}`);

    await page.goto('/keys');
    await expect(page.getByTestId('create-key-form')).toBeVisible();
    await expectFitsPhone(page, '/keys');

    const { id, receiver } = await endpointWithDeliveries(page);
    try {
      await page.goto('/webhooks');
      await expect(page.getByTestId('endpoint-row').first()).toBeVisible();
      await expectFitsPhone(page, '/webhooks');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const addDialog = page.getByTestId('add-endpoint-dialog');
      await expect(addDialog.getByTestId('create-endpoint-form')).toBeVisible();
      await expectFitsPhone(page, '/webhooks with the add-endpoint dialog open');
      const addBox = (await addDialog.boundingBox())!;
      expect(addBox.x).toBeGreaterThanOrEqual(0);
      expect(addBox.x + addBox.width).toBeLessThanOrEqual(PHONE.width);
      await page.keyboard.press('Escape');
      await expect(addDialog).toHaveCount(0);

      await page.goto(`/webhooks/${id}`);
      await expect(rows(page).first()).toBeVisible();
      await expect(page.getByTestId('delivery-chart-summary')).toBeVisible();
      await expectFitsPhone(page, 'the endpoint page');
      await shot(page, 'webhook-endpoint-phone');

      await rows(page)
        .first()
        .getByRole('button', { name: /, details$/ })
        .click();
      await expect(page.getByTestId('attempt-row').first()).toBeVisible();
      await expectFitsPhone(page, 'the endpoint page with a delivery opened');
      await page.getByText('Show the numbers').click();
      await expectFitsPhone(page, "the endpoint page with the chart's numbers shown");

      const dialogs: [string, Locator][] = [
        ['edit-endpoint', page.getByTestId('edit-endpoint-dialog')],
        ['rotate-secret', page.getByRole('dialog', { name: 'Rotate the signing secret' })],
        ['recover-deliveries', page.getByTestId('recover-dialog')],
        ['delete-endpoint', page.getByRole('dialog', { name: 'Delete this endpoint?' })],
      ];
      for (const [trigger, dialog] of dialogs) {
        await page.getByTestId(trigger).click();
        await expect(dialog).toBeVisible();
        await expectFitsPhone(page, `the endpoint page with the ${trigger} dialog open`);
        const box = (await dialog.boundingBox())!;
        expect(box.x, `${trigger} dialog's left edge`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${trigger} dialog's right edge`).toBeLessThanOrEqual(PHONE.width);
        await page.keyboard.press('Escape');
        await expect(dialog).toHaveCount(0);
      }
    } finally {
      await receiver?.close();
    }

    await page.goto('/account');
    await expect(page.getByTestId('early-access-status')).toBeVisible();
    await expectFitsPhone(page, '/account');

    await page.goto('/docs');
    await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
    await expectFitsPhone(page, '/docs');

    await page.context().clearCookies();
    await page.goto('/sign-in');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expectFitsPhone(page, '/sign-in');
    await page.goto('/sign-up');
    await expect(page.getByRole('button', { name: 'Create account' })).toBeVisible();
    await expectFitsPhone(page, '/sign-up');
  });
});
