import http from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import { readState, signInAsDemo } from './state';

// In Debian's Chromium against `npm start`: the pages work under their Content-Security-Policy (no
// violation reported on any of them, Swagger UI included), and another origin cannot frame them.

const state = readState();

const signIn = (page: Page) => signInAsDemo(page, state);

/** Every CSP violation and uncaught error the page reports, from the first script on. */
async function watchPage(page: Page) {
  const problems: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
    });
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|CSP violation/i.test(msg.text()))
      problems.push(msg.text());
  });
  page.on('pageerror', (err) =>
    problems.push(`page error on ${new URL(page.url()).pathname}: ${err.message}`),
  );
  return problems;
}

test('every page, Swagger UI included, runs under its CSP without a single violation', {
  tag: '@any-database',
}, async ({ page }) => {
  const problems = await watchPage(page);
  for (const path of ['/', '/sign-up', '/sign-in']) {
    await page.goto(path);
    await expect(page.locator('main')).toBeVisible();
  }
  await page.goto('/docs');
  // Swagger UI's bundle is loaded by a nonced script ('strict-dynamic') and renders the spec.
  await expect(page.getByTestId('api-reference')).toContainText('/notes', { timeout: 30_000 });
  await signIn(page);
  for (const path of ['/notes', '/keys', '/webhooks', '/account']) {
    await page.goto(path);
    await expect(page.locator('main h1').first()).toBeVisible();
  }
  // Client-side navigation and a data request after hydration work too.
  await page.getByRole('link', { name: 'Notes' }).first().click();
  await page.waitForURL('**/notes');
  await page.locator('main a[href^="/notes/"]').first().click();
  await expect(page.getByText('Transcript').first()).toBeVisible();
  expect(problems).toEqual([]);
});

test('the Account page hydrates without an error when its code arrives after the navigation has fetched the account it shows too', {
  tag: '@any-database',
}, async ({ page }) => {
  await signIn(page);
  const problems = await watchPage(page);
  // The chunk with the Account page's component is held until the navigation's account query has
  // been answered, as on a busy machine: the page then hydrates with that answer in the cache.
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname.includes('account.get'));
  let held = 0;
  await page.route('**/_next/static/chunks/*.js', async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    if (body.includes('Loading your account')) {
      held++;
      await answered;
    }
    await route.fulfill({ response, body });
  });
  await page.goto('/account');
  await expect(page.getByTestId('email-status')).toBeVisible();
  // One more round trip to the page, so that an error reported in the same commit has arrived.
  await page.evaluate(() => new Promise(requestAnimationFrame));
  expect(held).toBeGreaterThan(0);
  expect(problems).toEqual([]);
});

test('another origin cannot frame the settings app (frame-ancestors, X-Frame-Options)', {
  tag: '@any-database',
}, async ({ page, baseURL }) => {
  await signIn(page);
  // A page on another origin (another port) that tries to show /keys inside an iframe.
  const attacker = http.createServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><h1>Win a prize</h1><iframe id="victim" src="${baseURL}/keys" width="800" height="600"></iframe>`,
      );
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = attacker.address() as { port: number };
    const blocked = page.waitForEvent('console', (msg) =>
      /frame-ancestors|X-Frame-Options|Refused to display/i.test(msg.text()),
    );
    await page.goto(`http://127.0.0.1:${port}/`);
    await blocked;
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    // The browser replaced the framed page with its own error page: none of the app reached it.
    expect(frame!.url()).not.toContain('/keys');
    expect(await frame!.content()).not.toContain('API keys');
  } finally {
    await new Promise<void>((resolve) => attacker.close(() => resolve()));
  }
});
