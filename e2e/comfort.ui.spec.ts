import { expect, test } from './fixtures';
import { demoLogin, readState } from './state';

// Comfort, first steps: a favicon (no console error for a missing one) and a skip link that is the
// first Tab stop of every settings page and moves focus past the navigation.

const state = readState();

test('the first Tab stop skips the navigation to the content; the favicon is served', {
  tag: '@any-database',
}, async ({ page }) => {
  const failed: string[] = [];
  page.on('response', (res) => {
    if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
  });
  const demo = demoLogin(state);
  await page.goto('/sign-in?callbackUrl=%2Fkeys');
  await page.getByLabel('Email').fill(demo.email);
  await page.getByLabel('Password').fill(demo.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/keys');

  for (const path of ['/notes', '/keys', '/webhooks', '/account']) {
    await page.goto(path);
    // Tab only once the page has settled: pressed while it still loads (seen once on /account),
    // the keypress can reach the document before the skip link is its first stop.
    await expect(page.locator('main h1').first()).toBeVisible();
    await page.waitForLoadState('networkidle');
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(page.locator('main#main')).toBeFocused();
    // The next Tab stop is inside the content, not the navigation.
    await page.keyboard.press('Tab');
    const where = await page.evaluate(() => {
      const el = document.activeElement;
      const focusable = document.querySelector(
        'main a[href], main button:not([disabled]), main input:not([disabled]), main select, main textarea, main [tabindex="0"]',
      );
      return {
        inMain: !!el?.closest('main'),
        focusable: !!focusable,
        what: el ? `${el.tagName} ${el.textContent?.slice(0, 40)}` : '',
      };
    });
    // Nothing focusable in the content (the account page can be all text): Tab leaves the page.
    expect(where.inMain || !where.focusable, `${path}: ${where.what}`).toBe(true);
  }

  const icon = await page.locator('link[rel="icon"]').first().getAttribute('href');
  expect(icon).toBeTruthy();
  const res = await page.request.get(icon!);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('image/svg+xml');
  expect(failed.filter((f) => /favicon|icon/.test(f))).toEqual([]);
});
