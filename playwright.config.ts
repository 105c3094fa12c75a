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
  timeout: 60_000,
  use: { baseURL: `http://127.0.0.1:${PORT}` },
  projects: [{ name: 'api', testMatch: /.*\.api\.spec\.ts/ }],
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
