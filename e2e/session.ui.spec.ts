import http from 'node:http';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';

// Sessions, as a new user tries them in Debian's Chromium against `npm start`: sign up, sign in,
// sign out, and the old cookie no longer works; "sign out everywhere"; a callbackUrl that leads off
// the site lands on /notes; a throttled sign-in says to wait. A signed-out visit to a settings page
// asks to sign in with that page as the callbackUrl, and signing in returns there.

test.describe.configure({ mode: 'serial' });

const password = 'amber-tundra-violin-36';

/** Nothing leaves 127.0.0.1: a navigation elsewhere (an open redirect) is stopped, and recorded. */
async function confine(context: BrowserContext) {
  const escaped: string[] = [];
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => {
      escaped.push(route.request().url());
      return route.abort();
    },
  );
  return escaped;
}

async function signUp(page: Page, email: string) {
  await page.goto('/sign-up');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
}

async function signIn(page: Page, email: string, path = '/sign-in') {
  await page.goto(path);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === 'next-auth.session-token');
  expect(cookie, 'a session cookie after signing in').toBeTruthy();
  return `${cookie!.name}=${cookie!.value}`;
}

async function newUser(browser: Browser) {
  const context = await browser.newContext();
  const escaped = await confine(context);
  const page = await context.newPage();
  return { context, page, escaped };
}

test('sign up, sign in, sign out, and the old cookie no longer works', { tag: '@any-database' }, async ({
  browser,
  request,
}) => {
  const { context, page } = await newUser(browser);
  const email = `newcomer-${Date.now()}@e2e.test`;
  await signUp(page, email);
  await expect(page.getByTestId('sign-up-sent')).toContainText(email);
  await expect(page.getByTestId('sign-up-sent')).toContainText(
    'If this address was new, your account is ready',
  );

  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.waitForURL('**/sign-in?callbackUrl=**');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/account?welcome=1');
  await expect(page.getByRole('heading', { name: 'Welcome! Your account is ready.' })).toBeVisible();
  await expect(page.getByTestId('email-row').filter({ hasText: 'Welcome to Meeting Notes' })).toBeVisible();

  const cookie = await sessionCookie(context);
  const before = await request.get('/api/trpc/account.get', { headers: { cookie } });
  expect(before.status()).toBe(200);
  expect((await before.json()).result.data.email).toBe(email);

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL('**/sign-in');

  // The cookie from before signing out, replayed: no session anywhere.
  const replayed = await request.get('/api/trpc/account.get', { headers: { cookie } });
  expect(replayed.status()).toBe(401);
  expect((await replayed.json()).error.data.code).toBe('UNAUTHORIZED');
  expect(await (await request.get('/api/auth/session', { headers: { cookie } })).json()).toEqual({});
  const page401 = await request.get('/keys', { headers: { cookie }, maxRedirects: 0 });
  expect([302, 303, 307]).toContain(page401.status());
  expect(page401.headers().location).toMatch(/\/sign-in\?callbackUrl=%2Fkeys$/);
  // The same visit in the browser: the sign-in form, then back to /keys, not /notes.
  await page.goto('/keys');
  await page.waitForURL('**/sign-in?callbackUrl=%2Fkeys');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === '/keys' && url.search === '');
  await expect(page.getByTestId('create-key-form')).toBeVisible();
  await context.close();
});

test('"Sign out everywhere" on the Account page signs out every browser of the account', {
  tag: '@any-database',
}, async ({ browser, request }) => {
  const laptop = await newUser(browser);
  const email = `everywhere-${Date.now()}@e2e.test`;
  await signUp(laptop.page, email);
  await signIn(laptop.page, email);
  await laptop.page.waitForURL('**/notes');
  const phone = await newUser(browser);
  await signIn(phone.page, email);
  await phone.page.waitForURL('**/notes');
  const phoneCookie = await sessionCookie(phone.context);

  await laptop.page.goto('/account');
  await laptop.page.getByTestId('sign-out-everywhere').click();
  await laptop.page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
  await laptop.page.waitForURL('**/sign-in');

  await phone.page.goto('/keys');
  await phone.page.waitForURL('**/sign-in?callbackUrl=%2Fkeys');
  expect((await request.get('/api/trpc/account.get', { headers: { cookie: phoneCookie } })).status()).toBe(
    401,
  );
  // And signing in again works, back on the page that asked for it.
  await phone.page.getByLabel('Email').fill(email);
  await phone.page.getByLabel('Password').fill(password);
  await phone.page.getByRole('button', { name: 'Sign in' }).click();
  await phone.page.waitForURL((url) => url.pathname === '/keys');
  await laptop.context.close();
  await phone.context.close();
});

test('a callbackUrl that leads off the site lands on /notes after signing in', {
  tag: '@any-database',
}, async ({ browser, baseURL }) => {
  // Another origin on this machine stands in for the attacker's site.
  let visits = 0;
  const evil = http.createServer((_req, res) => {
    visits++;
    res.end('evil');
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  const evilOrigin = `127.0.0.1:${(evil.address() as { port: number }).port}`;
  const { context, page, escaped } = await newUser(browser);
  const email = `callback-ui-${Date.now()}@e2e.test`;
  await signUp(page, email);
  for (const callbackUrl of [
    `http://${evilOrigin}/`,
    `//${evilOrigin}`,
    `/\\${evilOrigin}`,
    'https://evil.example/',
    '//evil.example',
  ]) {
    await context.clearCookies();
    await signIn(page, email, `/sign-in?callbackUrl=${encodeURIComponent(callbackUrl)}`);
    await page.waitForURL((url) => url.pathname === '/notes', { timeout: 15_000 });
    expect(new URL(page.url()).origin, callbackUrl).toBe(new URL(baseURL!).origin);
  }
  expect(visits).toBe(0);
  expect(escaped).toEqual([]);
  // A path of this site is followed.
  await context.clearCookies();
  await signIn(page, email, `/sign-in?callbackUrl=${encodeURIComponent('/keys')}`);
  await page.waitForURL('**/keys');
  await context.close();
  evil.close();
});

test('after 10 wrong passwords for an email, signing in says to wait, even with the right one', {
  tag: '@any-database',
}, async ({ browser }) => {
  const { context, page } = await newUser(browser);
  const email = `throttled-${Date.now()}@e2e.test`;
  await signUp(page, email);
  await page.goto('/sign-in');
  const attempt = async (pass: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(pass);
    const answered = page.waitForResponse((r) => r.url().includes('/api/auth/callback/credentials'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    return (await answered).status();
  };
  for (let i = 0; i < 10; i++) {
    expect(await attempt(`wrong-password-${i}`)).toBe(401);
    await expect(page.getByText('That email and password do not match an account.')).toBeVisible();
  }
  expect(await attempt(password)).toBe(429);
  await expect(
    page.getByText(/Too many sign-in attempts\. Please wait \d+ minutes?, then try again\./),
  ).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/sign-in');
  await context.close();
});
