import { defineConfig } from '@playwright/test';

// End-to-end tests against the real app: `next build` + `npm start` on a fresh database
// (embedded PGlite, or a new database on TEST_DATABASE_URL's server). e2e/start-server.ts
// prepares it and writes what the tests need to e2e/.state/.
const PORT = Number(process.env.E2E_PORT ?? 3310);

export default defineConfig({
  testDir: 'e2e',
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
    // Debian's Chromium; never a downloaded browser. CHROMIUM_PATH overrides the path.
    {
      name: 'ui',
      testMatch: /.*\.ui\.spec\.ts/,
      use: {
        browserName: 'chromium',
        viewport: { width: 1280, height: 860 },
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
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
