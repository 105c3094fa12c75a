import { chromium, defineConfig } from '@playwright/test';
import { DEBIAN_CHROMIUM, findBrowser } from './scripts/find-test-tools.mjs';

// End-to-end tests against the real app: `next build` + `npm start` on a fresh database
// (embedded PGlite, or a new database on TEST_DATABASE_URL's server). e2e/start-server.ts
// prepares it and writes what the tests need to e2e/.state/.
const PORT = Number(process.env.E2E_PORT ?? 3310);
// The same search as `npm test`'s first step (scripts/ensure-test-tools.mjs), so the tests launch
// the browser it approved. With none found, Debian's path stands in: the `api` project still
// runs, and `ui` fails naming that path.
const browser = findBrowser({ env: process.env, playwrightPath: () => chromium.executablePath() });
const CHROMIUM = browser.found ? browser.path : process.env.CHROMIUM_PATH || DEBIAN_CHROMIUM;

// Tests tagged @any-database check what the browser or the HTTP layer does whatever database is
// behind it: axe, layouts, CSP and other headers, body limits, and the settings app's pages,
// dialogs, sessions and journeys, whose procedures and background work the vitest suite runs on
// both databases. `npm test` runs every test on PGlite; on PostgreSQL (TEST_DATABASE_URL, the
// second half of CI) it runs the rest: the API specs (several instances behind PgBouncer, the
// standalone copy, traces of SQL) and search in the browser. E2E_ALL=1 runs them all there too.
//
// Tests tagged @postgres (several instances behind PgBouncer) need a PostgreSQL server: on PGlite
// they are left out of the run, not skipped.
function leftOut(): RegExp | undefined {
  if (!process.env.TEST_DATABASE_URL) return /@postgres/;
  return process.env.E2E_ALL ? undefined : /@any-database/;
}
const LEFT_OUT = leftOut();

export default defineConfig({
  testDir: 'e2e',
  // Playwright empties its output folder when it starts: a folder of its own, so that what vitest
  // wrote to test-results/ before it in the same `npm test` (openapi-contract.log) stays.
  outputDir: 'test-results/e2e',
  ...(LEFT_OUT && { grepInvert: LEFT_OUT }),
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [['list']],
  timeout: 120_000,
  expect: { timeout: 15_000 },
  use: { baseURL: `http://127.0.0.1:${PORT}` },
  projects: [
    // HTTP only, no browser (documenso's split).
    { name: 'api', testMatch: /.*\.api\.spec\.ts/ },
    // CHROMIUM_PATH, Debian's Chromium, or Playwright's own; see scripts/find-test-tools.mjs.
    {
      name: 'ui',
      testMatch: /.*\.ui\.spec\.ts/,
      use: {
        browserName: 'chromium',
        viewport: { width: 1280, height: 860 },
        launchOptions: {
          executablePath: CHROMIUM,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--disable-quic',
            '--no-first-run',
          ],
        },
      },
    },
  ],
  webServer: {
    command: `node_modules/.bin/tsx e2e/start-server.ts`,
    url: `http://127.0.0.1:${PORT}/api/openapi.json`,
    env: { PORT: String(PORT), NEXT_TELEMETRY_DISABLED: '1' },
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
