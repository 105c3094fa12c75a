import type { Page } from '@playwright/test';
import { recordNote } from '../test/support/recorder';
import { axe, DESKTOP, graveViolations, PHONE } from './axe';
import { expect, test } from './fixtures';
import { shot, shotOf } from './screenshots';
import { demoLogin, readState, signInAsDemo } from './state';

// No dead ends, accessibility and comfort in the settings app of a fresh `npm start`: toasts after
// mutations, the list after deleting what was on screen (and Back does not land on "not found"),
// friendly messages with *Try again* instead of "Failed to fetch", the date the notes list is
// sorted by, summaries on every demo note, a phone menu with every entry, focus on the new page's
// heading, and /docs inside the app's frame when signed in.

const state = readState();

/** What axe must also see: a control in its pressed or selected state, or the current page's link. */
const PRESSED_OR_SELECTED = '[aria-pressed="true"], [aria-selected="true"], [aria-current="page"]';

/** A state of a page the axe sweep checks besides the page as it loads, and how to reach it. */
const STATES: Record<string, { label: string; enter(page: Page): Promise<void> }> = {
  endpoint: {
    label: 'with 7 days chosen on the chart',
    async enter(page) {
      await page.getByTestId('delivery-chart-week').click();
      await expect(page.getByTestId('delivery-chart-week')).toHaveAttribute('aria-pressed', 'true');
      await expect(page.getByTestId('delivery-chart-summary')).toContainText('the last 7 days');
    },
  },
  '/docs': {
    label: 'with Form B chosen',
    async enter(page) {
      await page.getByTestId('form-switch-B').click();
      await expect(page.getByTestId('form-switch-B')).toHaveAttribute('aria-pressed', 'true');
      await expect(page.getByTestId('api-reference')).toHaveAttribute('data-form', 'B');
      await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
    },
  },
  '/webhooks': {
    label: 'with the add-endpoint dialog open',
    async enter(page) {
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect(page.getByTestId('create-endpoint-form')).toBeVisible();
    },
  },
};

const toasts = (page: Page) => page.getByTestId('toasts');

/** A short note in the demo account through the recorder API (deleted by the test that made it). */
const recordDemoNote = (baseURL: string, title: string, startedAt?: string): Promise<string> =>
  recordNote(baseURL, demoLogin(state).apiKey, {
    title,
    ...(startedAt && { started_at: startedAt }),
    segments: [
      { speaker: 'Ana', content: 'A short meeting about the toast test.', start_time: 0, end_time: 4 },
    ],
  });

async function deleteNote(baseURL: string, id: string) {
  await fetch(`${baseURL}/v1/notes/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${demoLogin(state).apiKey}` },
  });
}

test('deleting a note says so in a toast, shows the list, and Back does not land on "Note not found"', {
  tag: '@any-database',
}, async ({ page, baseURL }) => {
  const id = await recordDemoNote(baseURL!, 'Toast test meeting');
  try {
    await signInAsDemo(page, state);
    await page.locator(`[data-note-id="${id}"] a`).click();
    await page.waitForURL(`**/notes/${id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Toast test meeting' })).toBeVisible();
    // Item 5: after a client-side navigation the focus is on the new page's heading.
    await expect(page.getByRole('heading', { level: 1, name: 'Toast test meeting' })).toBeFocused();

    await page.getByTestId('delete-note').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete note' }).click();
    await page.waitForURL((url) => url.pathname === '/notes');
    await expect(toasts(page)).toHaveAttribute('role', 'status');
    await expect(toasts(page)).toHaveAttribute('aria-live', 'polite');
    await expect(toasts(page).getByTestId('toast')).toContainText('Note “Toast test meeting” deleted');
    await expect(page.locator(`[data-note-id="${id}"]`)).toHaveCount(0);
    await shot(page, 'note-deleted-toast', { fullPage: false });

    // The deleted note's page was replaced in the history: Back goes to where the user came from.
    await page.goBack();
    await expect(page).not.toHaveURL(new RegExp(id));
    await expect(page.getByText('Note not found')).toHaveCount(0);
  } finally {
    await deleteNote(baseURL!, id);
  }
});

test('a webhook endpoint: added, test event, deleted, each with a toast; Back after the delete is no dead end', {
  tag: '@any-database',
}, async ({ page }) => {
  await signInAsDemo(page, state);
  await page.goto('/webhooks');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const url = `http://127.0.0.1:9/toast-${Date.now()}`;
  await page.getByLabel('Endpoint URL').fill(url);
  await page.getByTestId('create-endpoint-form').getByRole('button', { name: 'Create endpoint' }).click();
  await expect(toasts(page)).toContainText(`Endpoint added: ${url}`);
  await page.getByRole('link', { name: 'Open it to send a test event' }).click();
  await page.waitForURL(/\/webhooks\/[0-9a-f-]{36}$/);
  const endpointPath = new URL(page.url()).pathname;
  await page.getByTestId('send-test-event').click();
  await expect(toasts(page)).toContainText('Test event queued: meeting.completed');
  // The note beside the buttons stays; the toast is what announces it (one live region).
  await expect(page.getByTestId('endpoint-action-status')).toHaveText('Test event queued: meeting.completed');
  await expect(page.getByTestId('endpoint-action-status')).not.toHaveAttribute('aria-live', /.+/);

  await page.getByTestId('delete-endpoint').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
  await page.waitForURL((u) => u.pathname === '/webhooks');
  await expect(toasts(page)).toContainText(`Endpoint deleted: ${url}`);
  await expect(page.getByText(url)).toHaveCount(0);
  await page.goBack();
  await expect(page).not.toHaveURL(new RegExp(`${endpointPath}$`));
  await expect(page.getByText('Endpoint not found')).toHaveCount(0);
});

test('creating and revoking a key are confirmed by toasts', { tag: '@any-database' }, async ({ page }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const name = `toast key ${Date.now()}`;
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page
    .getByTestId('create-key-form')
    .getByRole('button', { name: /create/i })
    .click();
  await expect(toasts(page)).toContainText(`Key “${name}” created`);
  const row = page.getByTestId('key-row').filter({ hasText: name }).first();
  await expect(row).toBeVisible({ timeout: 60_000 });
  const keyId = await row.getAttribute('data-key-id');
  await page.getByTestId(`revoke-key-${keyId}`).first().click();
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /revoke/i })
    .click();
  await expect(toasts(page)).toContainText(`Key “${name}” revoked`);
});

test('a service that cannot be reached gets a plain message and Try again, never "Failed to fetch"', {
  tag: '@any-database',
}, async ({ page }) => {
  await signInAsDemo(page, state);
  // The keys list's request fails as it does offline (the batch that carries it is aborted).
  const cut = (u: URL) => u.pathname.startsWith('/api/trpc/') && u.pathname.includes('keys.list');
  await page.route(cut, (route) => route.abort('internetdisconnected'));
  await page.goto('/keys');
  const alert = page.locator('main [role="alert"]').filter({ hasText: 'You appear to be offline' });
  await expect(alert).toBeVisible();
  await shot(page, 'offline-try-again', { fullPage: false });
  await expect(page.locator('body')).not.toContainText(/Failed to fetch|NetworkError|TypeError/);
  await page.unroute(cut);
  await alert.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('key-row').first()).toBeVisible();
  await expect(alert).toHaveCount(0);

  // A form's call: creating an endpoint while the service cannot be reached, then again.
  await page.goto('/webhooks');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const url = `http://127.0.0.1:9/offline-${Date.now()}`;
  const create = (u: URL) => u.pathname.startsWith('/api/trpc/') && u.pathname.includes('webhooks.create');
  await page.route(create, (route) => route.abort('internetdisconnected'));
  await page.getByLabel('Endpoint URL').fill(url);
  await page.getByTestId('create-endpoint-form').getByRole('button', { name: 'Create endpoint' }).click();
  const failed = page.getByTestId('create-endpoint-form').getByRole('alert');
  await expect(failed).toContainText('You appear to be offline, or the service could not be reached');
  await expect(page.locator('body')).not.toContainText(/Failed to fetch/);
  await page.unroute(create);
  await failed.getByRole('button', { name: 'Try again' }).click();
  await expect(toasts(page)).toContainText(`Endpoint added: ${url}`);
  // Tidy: the endpoint goes again.
  await page.getByRole('link', { name: 'Open it to send a test event' }).click();
  await page.getByTestId('delete-endpoint').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
  await page.waitForURL((u) => u.pathname === '/webhooks');
});

test('the notes list shows the date it is sorted by (when a note was added), and the meeting day when it differs', {
  tag: '@any-database',
}, async ({ page, baseURL }) => {
  const id = await recordDemoNote(baseURL!, 'Back-filled September meeting', '2026-09-01T09:00:00Z');
  try {
    await signInAsDemo(page, state);
    const row = page.locator(`[data-note-id="${id}"]`);
    // Added just now, so it leads the list although it met in September.
    await expect(page.getByTestId('note-row').first()).toHaveAttribute('data-note-id', id);
    await expect(row.getByTestId('note-added')).toContainText('Added');
    const added = await row.getByTestId('note-added').locator('time').getAttribute('datetime');
    expect(Date.now() - new Date(added!).getTime()).toBeLessThan(24 * 3_600_000);
    await expect(row.getByTestId('note-started').locator('time')).toHaveAttribute(
      'datetime',
      '2026-09-01T09:00:00.000Z',
    );
    await expect(row.getByTestId('note-started')).toContainText('Met');
  } finally {
    await deleteNote(baseURL!, id);
  }
});

test('every demo note has a summary (none says "not generated yet" forever)', async ({ page }) => {
  await signInAsDemo(page, state);
  // The two demo meetings written without a summary of their own.
  for (const title of ['Design review: weekly coverage view', 'Untitled meeting']) {
    const row = page.getByTestId('note-row').filter({ hasText: title }).first();
    await expect(row).toContainText('Summary');
    await expect(row).not.toContainText('No summary yet');
    await row.getByRole('link').click();
    await expect(page.getByTestId('note-summary')).toHaveAttribute('data-summary-state', 'ready');
    await expect(page.getByTestId('note-summary')).not.toContainText('not generated yet');
    await page.goBack();
  }
});

test('on a 390 px phone a Menu button shows every entry, Account included, with no sideways scroll', {
  tag: '@any-database',
}, async ({ page }) => {
  await page.setViewportSize(PHONE);
  await signInAsDemo(page, state);
  const nav = page.getByRole('navigation', { name: 'Settings' });
  await expect(nav).toBeHidden();
  const menu = page.getByRole('button', { name: 'Menu' });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  for (const label of ['Notes', 'API keys', 'Webhooks', 'API reference', 'Account']) {
    const link = nav.getByRole('link', { name: label, exact: true });
    await expect(link).toBeInViewport();
    const box = (await link.boundingBox())!;
    expect(box.x + box.width, label).toBeLessThanOrEqual(PHONE.width);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await expect(nav.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await shot(page, 'phone-menu', { fullPage: false });
  // Escape closes the menu and gives the focus back to its button.
  await page.keyboard.press('Escape');
  await expect(nav).toBeHidden();
  await expect(menu).toBeFocused();
  // Choosing an entry opens it, closes the menu and focuses the new page's heading.
  await menu.click();
  await nav.getByRole('link', { name: 'Account', exact: true }).click();
  await page.waitForURL('**/account');
  await expect(nav).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeFocused();
});

test('focus moves to the main heading after client-side navigation, not to <body>', {
  tag: '@any-database',
}, async ({ page }) => {
  await signInAsDemo(page, state);
  const nav = page.getByRole('navigation', { name: 'Settings' });
  for (const [label, heading] of [
    ['API keys', 'API keys'],
    ['Webhooks', 'Webhooks'],
    ['Account', 'Account'],
    ['Notes', 'Notes'],
  ] as const) {
    await nav.getByRole('link', { name: label, exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeFocused();
  }
});

test('/docs sits inside the app when signed in (its navigation and skip link), and stays public', {
  tag: '@any-database',
}, async ({ page }) => {
  await page.goto('/docs');
  await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
  await expect(page.getByRole('navigation', { name: 'Settings' })).toHaveCount(0);
  // One main landmark, the page's: Swagger UI's own <main> (its operations) is a named region.
  await expect(page.getByRole('main')).toHaveCount(1);
  await expect(page.getByRole('main')).toHaveAttribute('id', 'main');
  await expect(page.getByRole('main').getByRole('region', { name: 'Operations' })).toHaveCount(1);
  await signInAsDemo(page, state);
  await page
    .getByRole('navigation', { name: 'Settings' })
    .getByRole('link', { name: 'API reference' })
    .click();
  await page.waitForURL('**/docs');
  const nav = page.getByRole('navigation', { name: 'Settings' });
  await expect(nav.getByRole('link', { name: 'API reference' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
  await expect(page.getByRole('main')).toHaveCount(1);
  await page.getByTestId('form-switch-B').click();
  await expect(page.getByTestId('api-reference')).toContainText('deliveries');
  await expect(page.getByRole('main')).toHaveCount(1);
  await page.goto('/docs');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
});

test('axe finds no serious or critical violation on any page, /docs included, in light and dark at 1280 px and 390 px', {
  tag: '@any-database',
}, async ({ page }) => {
  test.setTimeout(360_000);
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const path of ['/sign-in', '/sign-up', '/docs']) {
      await page.goto(path);
      if (path === '/docs')
        await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
      else await expect(page.locator('main')).toBeVisible();
      found.push(...(await graveViolations(page, `${scheme} ${path} (signed out)`)));
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await signInAsDemo(page, state);
  await page.getByTestId('note-row').first().getByRole('link').click();
  await page.waitForURL(/\/notes\/[0-9a-f-]{36}/);
  const notePath = new URL(page.url()).pathname;

  await page.goto('/webhooks');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const url = `http://127.0.0.1:9/axe-${Date.now()}`;
  await page.getByLabel('Endpoint URL').fill(url);
  await page.getByTestId('create-endpoint-form').getByRole('button', { name: 'Create endpoint' }).click();
  await page.getByRole('link', { name: 'Open it to send a test event' }).click();
  await page.waitForURL(/\/webhooks\/[0-9a-f-]{36}$/);
  const endpointPath = new URL(page.url()).pathname;
  // A test event (nothing listens on port 9, so its attempts fail) gives the endpoint attempts: its
  // page then shows the health chart with its 24 hours / 7 days toggle.
  await page.getByTestId('send-test-event').click();
  await expect(page.getByTestId('delivery-chart-day')).toBeVisible({ timeout: 30_000 });

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const path of [
      '/notes',
      '/notes?q=budget',
      notePath,
      '/keys',
      '/webhooks',
      endpointPath,
      '/account',
      '/docs',
    ]) {
      await page.goto(path);
      await expect(page.locator('html')).toHaveClass(scheme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
      await expect(page.locator('main h1').first()).toBeVisible();
      if (path === '/docs')
        await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
      await expect(page.locator('main').getByText(/^(Loading|Searching)/)).toHaveCount(0);
      // One main landmark: the page's (axe's landmark-no-duplicate-main is only moderate).
      await expect(page.getByRole('main'), `${scheme} ${path}`).toHaveCount(1);
      found.push(...(await graveViolations(page, `${scheme} ${path}`)));

      // The states a click leaves behind: the other chart period, the other API form, the
      // add-endpoint dialog. Each is swept with the pressed or selected control on screen.
      const extra = STATES[path === endpointPath ? 'endpoint' : path];
      if (extra) {
        await extra.enter(page);
        await expect(page.locator(PRESSED_OR_SELECTED).filter({ visible: true }).first()).toBeVisible();
        found.push(...(await graveViolations(page, `${scheme} ${path} ${extra.label}`)));
        if (path === endpointPath && scheme === 'dark')
          await shotOf(page.getByTestId('delivery-chart').locator('..').locator('..'), 'webhook-chart-dark');
      }
    }
    // The phone menu, open.
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Menu' }).click();
    const { violations } = await axe(page).analyze();
    found.push(
      ...violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${scheme} menu: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    );
    await page.setViewportSize(DESKTOP);
  }

  await page.goto(endpointPath);
  await page.getByTestId('delete-endpoint').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
  await page.waitForURL((u) => u.pathname === '/webhooks');
  expect(found).toEqual([]);
});

test('dark mode follows the system, a toggle overrides it and is remembered, applied before the first paint', {
  tag: '@any-database',
}, async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await signInAsDemo(page, state);
  const html = page.locator('html');
  await expect(html).toHaveClass(/\bdark\b/);
  // The page itself is dark, not only the class.
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const darkBackground = await background();
  await expect(page.getByTestId('note-row').first()).toBeVisible();
  await shot(page, 'notes-dark', { fullPage: false });

  // Applied by a nonced script in <head>, before the body is parsed: no light flash.
  const served = await page.request.get('/notes');
  const body = await served.text();
  const nonce = /'nonce-([^']+)'/.exec(served.headers()['content-security-policy'] ?? '')?.[1];
  expect(nonce).toBeTruthy();
  const head = body.slice(0, body.indexOf('<body'));
  expect(head).toContain(`nonce="${nonce}"`);
  expect(head).toContain('__applyTheme');
  await page.goto('/keys', { waitUntil: 'domcontentloaded' });
  await expect(html).toHaveClass(/\bdark\b/);

  const toggle = page.getByRole('combobox', { name: 'Theme' });
  await expect(toggle).toHaveValue('system');
  await toggle.selectOption('light');
  await expect(html).not.toHaveClass(/\bdark\b/);
  expect(await background()).not.toBe(darkBackground);
  await page.reload();
  await expect(html).not.toHaveClass(/\bdark\b/);
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveValue('light');

  // Dark chosen on a light system.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await expect(html).toHaveClass(/\bdark\b/);
  // Until the page's code has loaded, the theme is applied but the control cannot be changed: a
  // choice made then would be lost, and the stored one would come back a moment later.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const pageCode = (url: URL) => url.pathname.startsWith('/_next/static/') && url.pathname.endsWith('.js');
  await page.route(pageCode, async (route) => {
    await held;
    await route.continue();
  });
  await page.reload({ waitUntil: 'domcontentloaded' });
  await expect(html).toHaveClass(/\bdark\b/);
  await expect(page.getByRole('combobox', { name: 'Theme' })).toBeDisabled();
  release();
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveValue('dark');
  // Back to the system: light now, and dark again when the system turns dark.
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
  await expect(html).not.toHaveClass(/\bdark\b/);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveClass(/\bdark\b/);
});

test('the notes list keeps its filter and how far it was paged in the URL, across a reload and Back', {
  tag: '@any-database',
}, async ({ page, baseURL }) => {
  const ids: string[] = [];
  try {
    // More than one page (20) of notes in the demo account.
    for (let i = 0; i < 22; i++) ids.push(await recordDemoNote(baseURL!, `Paging test ${i + 1}`));
    await signInAsDemo(page, state);
    const rows = page.getByTestId('note-row');
    await expect(rows).toHaveCount(20);
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.waitForURL((u) => u.searchParams.get('pages') === '2');
    await expect.poll(() => rows.count()).toBeGreaterThan(20);
    const total = await rows.count();

    await page.reload();
    await expect(rows).toHaveCount(total);
    // To a note and Back: the same rows.
    await rows
      .nth(total - 1)
      .getByRole('link')
      .click();
    await page.waitForURL(/\/notes\/[0-9a-f-]{36}/);
    await page.goBack();
    await expect(rows).toHaveCount(total);
    expect(new URL(page.url()).searchParams.get('pages')).toBe('2');

    // A filter starts again from its first page, and is kept by a reload.
    await page.getByTestId('platform-filter').selectOption('zoom');
    await page.waitForURL((u) => u.searchParams.get('platform') === 'zoom' && !u.searchParams.has('pages'));
    await page.reload();
    await expect(page.getByTestId('platform-filter')).toHaveValue('zoom');
    await expect(rows).toHaveCount(20);
  } finally {
    for (const id of ids) await deleteNote(baseURL!, id);
  }
});
