import type { APIRequestContext, Page } from '@playwright/test';
import { DESKTOP, graveViolations, PHONE } from './axe';
import { expect, test } from './fixtures';
import { shot } from './screenshots';
import { readState, signInAsDemo } from './state';

// API keys end to end, in Debian's Chromium against `npm start`: keys renamed, rolled with an
// overlap (the old key answering 200 until the overlap ends, then 401) and keeping their expiry, a
// replacement revoked with or without the key it replaced, keys created with an expiry, and each
// key's usage, all through the settings app and checked against /v1 with the keys the page showed.
// The keys page's pictures with usage, rolling and revoking in docs/settings-app.md#screenshots
// come from here.

const state = readState();
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

test.describe.configure({ mode: 'serial' });

const toasts = (page: Page) => page.getByTestId('toasts');
const keyRow = (page: Page, id: string) => page.locator(`[data-testid="key-row"][data-key-id="${id}"]`);
const rowsNamed = (page: Page, name: string) =>
  page.getByTestId('key-row').filter({ has: page.getByTestId('key-name').getByText(name, { exact: true }) });
const masked = (plaintext: string) => `${plaintext.slice(0, 8)}…${plaintext.slice(-4)}`;

const callV1 = (request: APIRequestContext, key: string) =>
  request.get('/v1/notes', { headers: { authorization: `Bearer ${key}` } });
const statusWith = async (request: APIRequestContext, key: string) => (await callV1(request, key)).status();

/** Creates a key through the form on /keys; its id (from the list) and the plaintext shown once. */
async function createKey(
  page: Page,
  name: string,
  expiry?: string,
): Promise<{ id: string; plaintext: string }> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  if (expiry) await page.getByTestId('create-key-expiry').selectOption(expiry);
  await page.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
  await expect(toasts(page)).toContainText(`Key “${name}” created`);
  const plaintext = (await page.getByTestId('shown-once-value').textContent())?.trim() ?? '';
  expect(plaintext).toMatch(/^mnk_[0-9A-Za-z]{40}$/);
  const row = rowsNamed(page, name);
  await expect(row).toHaveCount(1, { timeout: 30_000 });
  await expect(row).toContainText(masked(plaintext));
  return { id: (await row.getAttribute('data-key-id')) ?? '', plaintext };
}

/** The ids of the listed keys called `name`. */
const idsNamed = (page: Page, name: string) =>
  rowsNamed(page, name).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key-id') ?? ''));

/** Expects `iso` to lie within [from, to] (milliseconds since the epoch). */
function expectBetween(iso: string | null, from: number, to: number) {
  expect(iso).toBeTruthy();
  const at = new Date(iso ?? '').getTime();
  expect(at).toBeGreaterThanOrEqual(from);
  expect(at).toBeLessThanOrEqual(to);
}

test('a key rolled with a 1-hour overlap keeps answering 200 beside its replacement, and the list shows when it stops; a key rolled with a 3 s overlap answers 401 after it while its replacement answers 200', {
  tag: '@any-database',
}, async ({ page, request }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const name = `Production server ${Date.now()}`;
  const first = await createKey(page, name);
  expect(await statusWith(request, first.plaintext)).toBe(200);

  // The roll dialog: how long the old key keeps working, 24 hours unless chosen otherwise.
  await page.getByTestId(`roll-key-${first.id}`).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading')).toHaveText(`Roll key “${name}”`);
  const overlap = dialog.getByTestId('roll-overlap');
  await expect(overlap).toHaveValue('86400');
  expect(
    await overlap
      .locator('option')
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
  ).toEqual(['0', '3600', '86400', '604800']);
  await expect(overlap.locator('option')).toHaveText([/^Immediately/, '1 hour', /^24 hours/, '7 days']);
  await overlap.selectOption('3600');
  await expect(dialog).toContainText('Both keys work during this time');
  // A key that never expires gives a replacement that never expires: nothing to say about it.
  await expect(dialog.getByTestId('roll-expiry')).toHaveCount(0);

  const before = Date.now();
  await dialog.getByTestId('confirm-roll').click();
  const shown = dialog.getByTestId('rolled-key').getByTestId('shown-once-value');
  await expect(shown).toHaveText(/^mnk_[0-9A-Za-z]{40}$/);
  const after = Date.now();
  const second = (await shown.textContent())?.trim() ?? '';
  expect(second).not.toBe(first.plaintext);
  await expect(toasts(page)).toContainText(`Key “${name}” rolled`);
  const oldKeyNote = dialog.getByTestId('rolled-old-key');
  await expect(oldKeyNote).toContainText(`The old key ${masked(first.plaintext)} keeps working until`);
  const overlapEnd = await oldKeyNote.locator('time').getAttribute('datetime');
  expectBetween(overlapEnd, before + HOUR_MS - 1_000, after + HOUR_MS);
  await expect(dialog.getByTestId('rolled-new-expiry')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'I have stored it' }).click();
  await expect(dialog).toHaveCount(0);
  // The old key can no longer be rolled: the focus goes back to its Rename button.
  await expect(page.getByTestId(`rename-key-${first.id}`)).toBeFocused();

  // Both keys work during the overlap.
  expect(await statusWith(request, first.plaintext)).toBe(200);
  expect(await statusWith(request, second)).toBe(200);

  // The list: the old key says it was rolled and when it stops, about an hour from now.
  const oldRow = keyRow(page, first.id);
  const expiry = oldRow.getByTestId('key-expiry');
  await expect(expiry).toHaveAttribute('data-rolled', 'true');
  await expect(expiry).toContainText(/Rolled · expires in (5\d min|1 h)/);
  await expect(expiry).toContainText(`Replaced by ${masked(second)}, works until`);
  await expect(expiry.locator('time')).toHaveAttribute('datetime', overlapEnd ?? '');
  await expect(page.getByTestId(`roll-key-${first.id}`)).toHaveCount(0);
  await expect(rowsNamed(page, name)).toHaveCount(2);
  const secondId = (await idsNamed(page, name)).find((id) => id !== first.id) ?? '';
  await expect(keyRow(page, secondId)).toContainText(masked(second));
  await expect(keyRow(page, secondId).getByTestId('key-expiry')).toHaveCount(0);
  await expect(keyRow(page, secondId).getByTestId('key-replaces')).toHaveText(
    `Replaces ${masked(first.plaintext)}`,
  );

  // The new key rolled again, through the page's own tRPC call, with a 3-second overlap.
  const rolled = await page.evaluate(async (id) => {
    const res = await fetch('/api/trpc/keys.roll', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, overlapSeconds: 3 }),
    });
    return { status: res.status, body: await res.json() };
  }, secondId);
  expect(rolled.status).toBe(200);
  const result = rolled.body.result.data as {
    plaintext: string;
    key: { id: string; name: string; expiresAt: string | null };
    previous: { id: string; rolledTo: string; expiresAt: string };
  };
  expect(result.previous).toMatchObject({ id: secondId, rolledTo: result.key.id });
  expect(result.key).toMatchObject({ name, expiresAt: null });
  const third = result.plaintext;
  expect(await statusWith(request, third)).toBe(200);
  // The overlap ends: the rolled key is refused like a revoked one, its replacement is not.
  await expect.poll(() => statusWith(request, second), { timeout: 15_000, intervals: [500] }).toBe(401);
  expect(await statusWith(request, third)).toBe(200);
  expect(await statusWith(request, first.plaintext)).toBe(200);

  // After a reload the list holds the key still in its hour and the newest one; the stopped one is gone.
  await page.reload();
  await expect(rowsNamed(page, name)).toHaveCount(2);
  expect(new Set(await idsNamed(page, name))).toEqual(new Set([first.id, result.key.id]));
  await expect(keyRow(page, first.id).getByTestId('key-expiry')).toHaveAttribute('data-rolled', 'true');
  // Its replacement is gone, so the list no longer pairs it with one.
  await expect(keyRow(page, first.id).getByTestId('key-expiry')).toContainText(/^Rolled .*Works until/);
  await expect(page.getByTestId('key-replaces')).toHaveCount(0);
  await expect(page.getByTestId(`roll-key-${result.key.id}`)).toBeVisible();
});

test('a key expiring in 30 days rolls into a key with the same expiry, which the dialog and the one-time view say; revoking that replacement offers to revoke the key it replaced too, and does both', {
  tag: '@any-database',
}, async ({ page, request }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const name = `Contractor CI ${Date.now()}`;
  const first = await createKey(page, name, '30');
  const firstExpiry =
    (await keyRow(page, first.id).getByTestId('key-expiry').locator('time').getAttribute('datetime')) ?? '';
  expect(firstExpiry).not.toBe('');

  await page.getByTestId(`roll-key-${first.id}`).click();
  const dialog = page.getByRole('dialog');
  const keepsExpiry = dialog.getByTestId('roll-expiry');
  await expect(keepsExpiry).toContainText('Rolling keeps the expiry: the new key expires');
  await expect(keepsExpiry).toContainText('when the old one would have');
  await expect(keepsExpiry.locator('time')).toHaveAttribute('datetime', firstExpiry);
  await dialog.getByTestId('roll-overlap').selectOption('3600');
  await shot(page, 'api-key-roll', { fullPage: false });
  await dialog.getByTestId('confirm-roll').click();
  const shown = dialog.getByTestId('rolled-key').getByTestId('shown-once-value');
  await expect(shown).toHaveText(/^mnk_[0-9A-Za-z]{40}$/);
  const second = (await shown.textContent())?.trim() ?? '';
  const newExpiry = dialog.getByTestId('rolled-new-expiry');
  await expect(newExpiry).toContainText('The new key expires');
  await expect(newExpiry.locator('time')).toHaveAttribute('datetime', firstExpiry);
  await expect(toasts(page)).toContainText(`Key “${name}” rolled; the new key expires`);
  const overlapEnd =
    (await dialog.getByTestId('rolled-old-key').locator('time').getAttribute('datetime')) ?? '';
  await shot(page, 'api-key-rolled', { fullPage: false });
  await dialog.getByRole('button', { name: 'I have stored it' }).click();
  await expect(dialog).toHaveCount(0);

  // The list pairs the two: the replacement keeps the 30-day expiry and names the key it replaces.
  await expect(rowsNamed(page, name)).toHaveCount(2);
  const secondId = (await idsNamed(page, name)).find((id) => id !== first.id) ?? '';
  const newRow = keyRow(page, secondId);
  await expect(newRow.getByTestId('key-expiry')).toHaveAttribute('data-rolled', 'false');
  await expect(newRow.getByTestId('key-expiry').locator('time')).toHaveAttribute('datetime', firstExpiry);
  await expect(newRow.getByTestId('key-replaces')).toHaveText(`Replaces ${masked(first.plaintext)}`);
  await expect(keyRow(page, first.id).getByTestId('key-expiry')).toContainText(
    `Replaced by ${masked(second)}, works until`,
  );
  expect(await statusWith(request, first.plaintext)).toBe(200);
  expect(await statusWith(request, second)).toBe(200);

  // Revoking the replacement: the dialog says the old key keeps working, and until when.
  await page.getByTestId(`revoke-key-${secondId}`).click();
  await expect(dialog.getByRole('heading')).toHaveText('Revoke key?');
  const note = dialog.getByTestId('revoke-replaced-note');
  await expect(note).toHaveText(
    new RegExp(
      `^The key it replaced, ${masked(first.plaintext)}, keeps working until .+ unless you revoke it too\\.$`,
    ),
  );
  await expect(note.locator('time')).toHaveAttribute('datetime', overlapEnd);
  const alsoRevoke = dialog.getByRole('checkbox', {
    name: `Also revoke the key it replaced, ${masked(first.plaintext)}, now`,
  });
  await expect(alsoRevoke).not.toBeChecked();
  await expect(dialog.getByRole('button', { name: 'Revoke key' })).toBeVisible();
  await alsoRevoke.click();
  await expect(alsoRevoke).toBeChecked();
  await expect(dialog.getByRole('heading')).toHaveText('Revoke both keys?');
  expect(await graveViolations(page, 'revoke dialog of a replacement')).toEqual([]);
  await shot(page, 'api-key-revoke-replacement', { fullPage: false });
  // Cancelling forgets the choice: the box is unticked when the dialog opens again.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByTestId(`revoke-key-${secondId}`).click();
  await expect(alsoRevoke).not.toBeChecked();
  await alsoRevoke.click();
  await dialog.getByRole('button', { name: 'Revoke both keys' }).click();
  await expect(toasts(page)).toContainText(
    `Key “${name}” revoked, and the key it replaced, ${masked(first.plaintext)}, with it`,
  );
  await expect(rowsNamed(page, name)).toHaveCount(0);
  expect(await statusWith(request, second)).toBe(401);
  expect(await statusWith(request, first.plaintext)).toBe(401);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Your keys' })).toBeVisible();
  await expect(rowsNamed(page, name)).toHaveCount(0);
});

test('revoking a replacement without ticking the box leaves the key it replaced working, still listed until its overlap ends', {
  tag: '@any-database',
}, async ({ page, request }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const name = `Staging ${Date.now()}`;
  const first = await createKey(page, name);
  await page.getByTestId(`roll-key-${first.id}`).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('roll-overlap').selectOption('3600');
  await dialog.getByTestId('confirm-roll').click();
  const shown = dialog.getByTestId('rolled-key').getByTestId('shown-once-value');
  await expect(shown).toHaveText(/^mnk_/);
  const second = (await shown.textContent())?.trim() ?? '';
  await dialog.getByRole('button', { name: 'I have stored it' }).click();
  await expect(rowsNamed(page, name)).toHaveCount(2);
  const secondId = (await idsNamed(page, name)).find((id) => id !== first.id) ?? '';

  // The old key's own Revoke says its replacement keeps working, and offers no box.
  await page.getByTestId(`revoke-key-${first.id}`).click();
  await expect(dialog).toContainText(
    `ending its overlap now. Its replacement, ${masked(second)}, keeps working.`,
  );
  await expect(dialog.getByRole('checkbox')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.getByTestId(`revoke-key-${secondId}`).click();
  await expect(dialog.getByTestId('revoke-replaced-note')).toContainText(masked(first.plaintext));
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await expect(toasts(page)).toContainText(`Key “${name}” revoked`);
  await expect(keyRow(page, secondId)).toHaveCount(0);
  expect(await statusWith(request, second)).toBe(401);
  expect(await statusWith(request, first.plaintext)).toBe(200);
  await page.reload();
  await expect(rowsNamed(page, name)).toHaveCount(1);
  const oldExpiry = keyRow(page, first.id).getByTestId('key-expiry');
  await expect(oldExpiry).toHaveAttribute('data-rolled', 'true');
  await expect(oldExpiry).toContainText('Works until');
  await expect(oldExpiry).not.toContainText('Replaced by');
});

test('renaming a key with the keyboard: a toast, the new name after a reload, the key unchanged; a blank name gets a plain message', {
  tag: '@any-database',
}, async ({ page, request }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const name = `Laptop ${Date.now()}`;
  const key = await createKey(page, name);

  const trigger = page.getByTestId(`rename-key-${key.id}`);
  await expect(trigger).toHaveAccessibleName(`Rename key ${name}`);
  await trigger.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog');
  const field = dialog.getByLabel('Key name');
  await expect(field).toBeFocused();
  await expect(field).toHaveValue(name);

  // Blank (spaces pass the browser's `required`): the service's sentence, not zod's.
  await field.fill('   ');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('alert')).toHaveText('Give the key a name');
  await expect(dialog).not.toContainText(/Too small|expected string|invalid_type/i);

  const renamed = `Build server ${Date.now()}`;
  await field.fill(renamed);
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  await page.keyboard.press('Enter');
  await expect(toasts(page)).toContainText(`Key renamed to “${renamed}”`);
  await expect(dialog).toHaveCount(0);
  await expect(trigger).toBeFocused();
  await expect(keyRow(page, key.id).getByTestId('key-name')).toHaveText(renamed);

  await page.reload();
  await expect(keyRow(page, key.id).getByTestId('key-name')).toHaveText(renamed);
  await expect(rowsNamed(page, name)).toHaveCount(0);
  // Renaming does not touch the key itself.
  await expect(keyRow(page, key.id)).toContainText(masked(key.plaintext));
  expect(await statusWith(request, key.plaintext)).toBe(200);
});

test('a key created while the list is still loading is listed as soon as it is created, not at the next timed re-read', {
  tag: '@any-database',
}, async ({ page }) => {
  await signInAsDemo(page, state);
  // The list's first load is answered by the server now, before the key exists, and reaches the
  // page only once the page has handled the creation (its toast is shown): the order a slow
  // first load gives.
  let handled = () => {};
  const creationHandled = new Promise<void>((resolve) => {
    handled = resolve;
  });
  let loads = 0;
  await page.route(/\/api\/trpc\/[^?]*keys\.list/, async (route) => {
    if (loads++ > 0) return route.continue();
    const early = await route.fetch();
    await creationHandled;
    // A page that dropped this load (as it should) has aborted the request.
    await route.fulfill({ response: early }).catch(() => {});
  });
  await page.goto('/keys');
  const name = `Early ${Date.now()}`;
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
  await expect(toasts(page)).toContainText(`Key “${name}” created`);
  handled();
  // The list is re-read every 30 s: well before that.
  const row = rowsNamed(page, name);
  await expect(row).toHaveCount(1, { timeout: 10_000 });
  expect(loads).toBe(2);
  // Revoked again: the demo account's other tests need room under its 20 active keys.
  await page.getByTestId(`revoke-key-${await row.getAttribute('data-key-id')}`).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await expect(row).toHaveCount(0);
});

test('a key created with an expiry shows "Expires" and its date, counting down in its last week, and works until then', {
  tag: '@any-database',
}, async ({ page, request }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const expiry = page.getByTestId('create-key-expiry');
  await expect(expiry).toHaveValue('never');
  await expect(expiry.locator('option')).toHaveText([
    'Never',
    'In 7 days',
    'In 30 days',
    'In 90 days',
    'In 1 year',
  ]);

  const before = Date.now();
  const monthly = await createKey(page, `Contractor ${before}`, '30');
  const after = Date.now();
  await expect(toasts(page)).toContainText(`Key “Contractor ${before}” created; it expires`);
  // The form is ready for the next key: no expiry again.
  await expect(expiry).toHaveValue('never');
  const badge = keyRow(page, monthly.id).getByTestId('key-expiry');
  await expect(badge).toHaveAttribute('data-rolled', 'false');
  await expect(badge).toContainText(/^Expires \S/);
  await expect(badge).not.toContainText('in ');
  expectBetween(
    await badge.locator('time').getAttribute('datetime'),
    before + 30 * DAY_MS,
    after + 30 * DAY_MS,
  );
  expect(await statusWith(request, monthly.plaintext)).toBe(200);

  const weekly = await createKey(page, `Demo day ${before}`, '7');
  await expect(keyRow(page, weekly.id).getByTestId('key-expiry')).toContainText(/^Expires in 7 days$/);

  // A key made without one shows none.
  const forever = await createKey(page, `Forever ${before}`);
  await expect(keyRow(page, forever.id).getByTestId('key-expiry')).toHaveCount(0);
});

test('each key shows its requests today and this minute, when it was last used, and a 7-day chart that a screen reader can read', {
  tag: '@any-database',
}, async ({ page, request }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const name = `Usage ${Date.now()}`;
  const key = await createKey(page, name);
  const row = keyRow(page, key.id);
  await expect(row.getByTestId('key-usage-today')).toHaveText('0');
  await expect(row.getByTestId('key-last-used')).toHaveText('never');

  const requests = 3;
  for (let i = 0; i < requests; i++) expect(await statusWith(request, key.plaintext)).toBe(200);

  await page.reload();
  await expect(row.getByTestId('key-usage-today')).toHaveText(String(requests));
  const thisMinute = Number(await row.getByTestId('key-usage-minute').textContent());
  expect(thisMinute).toBeGreaterThanOrEqual(0);
  expect(thisMinute).toBeLessThanOrEqual(requests);
  await expect(row.getByTestId('key-last-used')).toHaveText('just now');
  const chart = row.getByTestId('key-usage-chart');
  await expect(chart).toHaveAttribute('role', 'img');
  await expect(chart).toHaveAttribute(
    'aria-label',
    new RegExp(
      `^Requests with key ${name} per UTC day over the last 7 days, ${requests} requests in all: (\\w+ \\d+ 0, ){6}today ${requests}$`,
    ),
  );
  await expect(chart.locator('rect')).toHaveCount(7);
  await shot(page, 'api-keys-usage');

  // On a phone the rows are cards with their own labels, and nothing pushes the page sideways.
  await page.setViewportSize(PHONE);
  await expect(row.getByText('Requests', { exact: true })).toBeVisible();
  await expect(chart).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await row.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await shot(page, 'api-keys-phone', { fullPage: false });
  await page.setViewportSize(DESKTOP);
});

test('the keys page, its roll dialog open and a rolled key shown, and its rename dialog have no serious or critical axe violation in light and dark at 1280 and 390 px', {
  tag: '@any-database',
}, async ({ page }) => {
  test.setTimeout(300_000);
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const name = `Axe ${Date.now()}`;
  let { id } = await createKey(page, name);
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto('/keys');
    await expect(page.locator('html')).toHaveClass(scheme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
    await expect(keyRow(page, id)).toBeVisible();
    await expect(page.locator('main').getByText(/^Loading/)).toHaveCount(0);
    found.push(...(await graveViolations(page, `${scheme} /keys`)));

    await page.getByTestId(`roll-key-${id}`).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('roll-overlap')).toBeVisible();
    found.push(...(await graveViolations(page, `${scheme} roll dialog`)));
    // With no overlap the hint turns to a warning; the key then leaves the list at once.
    await dialog.getByTestId('roll-overlap').selectOption('0');
    await expect(dialog).toContainText('Calls with the old key fail from now on');
    found.push(...(await graveViolations(page, `${scheme} roll dialog, no overlap`)));
    await dialog.getByTestId('confirm-roll').click();
    await expect(dialog.getByTestId('rolled-key').getByTestId('shown-once-value')).toHaveText(/^mnk_/);
    await expect(dialog.getByTestId('rolled-old-key')).toContainText('has stopped working');
    // The new key stays on screen although its row's key left the list.
    await expect(keyRow(page, id)).toHaveCount(0);
    await expect(dialog.getByTestId('rolled-key')).toBeVisible();
    found.push(...(await graveViolations(page, `${scheme} rolled key shown`)));
    await dialog.getByRole('button', { name: 'I have stored it' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.locator('#keys-heading')).toBeFocused();
    await expect(rowsNamed(page, name)).toHaveCount(1);
    id = (await idsNamed(page, name))[0] ?? '';

    await page.getByTestId(`rename-key-${id}`).click();
    await expect(dialog.getByLabel('Key name')).toBeFocused();
    found.push(...(await graveViolations(page, `${scheme} rename dialog`)));
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  expect(found).toEqual([]);
});

test('the keys page shows the MCP server URL of this host, and a key made there lists the tools through it', {
  tag: '@any-database',
}, async ({ page, baseURL }) => {
  await signInAsDemo(page, state);
  await page.goto('/keys');
  const key = await createKey(page, `Assistant ${Date.now()}`);
  const shown = page.getByRole('figure').filter({ hasText: 'MCP server URL' }).locator('code');
  await expect(shown).toHaveText(`${new URL(baseURL!).origin}/mcp`);
  const url = await shown.textContent();
  const res = await fetch(url!, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key.plaintext}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(res.status).toBe(200);
  const { result } = await res.json();
  expect(result.tools.map((t: { name: string }) => t.name)).toContain('search_meetings');
});
