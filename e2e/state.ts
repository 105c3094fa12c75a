import fs from 'node:fs';
import type { Cookie, Page } from '@playwright/test';
import path from 'node:path';

export const STATE_DIR = path.join(import.meta.dirname, '.state');

export interface E2eState {
  database: 'pglite' | 'postgres';
  dataDir?: string;
  databaseUrl?: string;
  /** Where the server's stdout goes, so tests can read what `npm start` printed. */
  serverLog: string;
  /** Accounts made with the admin CLI before the server started (PostgreSQL is never seeded). */
  accounts: { main?: { api_key: string }; demo?: { email: string; password: string; api_key: string } };
}

export function readState(): E2eState {
  return JSON.parse(fs.readFileSync(path.join(STATE_DIR, 'state.json'), 'utf8')) as E2eState;
}

/** The demo account's login: printed by the first `npm start` (PGlite), or made by `admin seed` (PostgreSQL). */
export function demoLogin(state: E2eState): { email: string; password: string; apiKey: string } {
  if (state.accounts.demo)
    return {
      email: state.accounts.demo.email,
      password: state.accounts.demo.password,
      apiKey: state.accounts.demo.api_key,
    };
  const printed = fs.readFileSync(state.serverLog, 'utf8');
  const email = /Login:\s+(\S+)/.exec(printed)?.[1];
  const password = /Password:\s+(\S+)/.exec(printed)?.[1];
  const apiKey = /API key:\s+(mnk_[A-Za-z0-9]+)/.exec(printed)?.[1];
  if (!email || !password || !apiKey) throw new Error(`npm start printed no demo login:\n${printed}`);
  return { email, password, apiKey };
}

/** The demo account's session cookies, from the first sign-in through the form in this worker. */
let demoSession: Cookie[] | undefined;

/**
 * Signs the page in as the demo account and leaves it on /notes. The first time in a worker it
 * goes through the sign-in form as a person would; later calls reuse the session that sign-in
 * gave (Playwright's stored sign-in), and go through the form again only if that session has
 * ended. Signing in is what e2e/session.ui.spec.ts and e2e/accounts-flow.ui.spec.ts test, with
 * accounts of their own; through the form each time, the other UI tests spent about 0.9 s more a
 * sign-in (the sign-in page, and the password hash at the service's full cost).
 */
export async function signInAsDemo(page: Page, state: E2eState): Promise<void> {
  if (demoSession) {
    await page.context().addCookies(demoSession);
    await page.goto('/notes');
    if (new URL(page.url()).pathname === '/notes') return;
  }
  const demo = demoLogin(state);
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(demo.email);
  await page.getByLabel('Password').fill(demo.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/notes');
  demoSession = await page.context().cookies();
}
