// Playwright's web server: a fresh database, a few accounts made with the admin CLI, then
// `npm start` exactly as a new user runs it, its stdout kept in e2e/.state/server.log.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startOtlpReceiver } from '../test/support/otlp-receiver';
import { startSmtpCapture } from '../test/support/smtp-capture';
import { keepMail, MAILBOX_FILE } from './mailbox';
import { SPANS_FILE } from './spans-file';
import { STATE_DIR, type E2eState } from './state';

const root = path.resolve(import.meta.dirname, '..');
fs.rmSync(STATE_DIR, { recursive: true, force: true });
fs.mkdirSync(STATE_DIR, { recursive: true });

// A real SMTP server on 127.0.0.1 catches what the app emails (verification and reset links,
// early-access requests); e2e/mailbox.ts reads what it caught.
fs.writeFileSync(MAILBOX_FILE, '');
const smtp = await startSmtpCapture({ onMail: keepMail });

// The server exports its traces to an OTLP/HTTP collector on 127.0.0.1; e2e/operations.api.spec.ts
// reads the spans it wrote.
fs.writeFileSync(SPANS_FILE, '');
const collector = await startOtlpReceiver({
  onSpans: (spans) =>
    fs.appendFileSync(SPANS_FILE, spans.map((span) => `${JSON.stringify(span)}\n`).join('')),
});

const env: NodeJS.ProcessEnv = {
  ...process.env,
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_SERVICE_NAME: 'meeting-notes-e2e',
  // Sent within a second, so the spec waits less for the spans of what it did.
  OTEL_BSP_SCHEDULE_DELAY: '500',
  SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
  // The operator of e2e/accounts-flow.ui.spec.ts, who signs up and verifies like anyone else.
  ADMIN_EMAILS: 'operator@e2e.test',
  LOG_LEVEL: 'warn',
  // The UI tests point webhooks at a receiver on 127.0.0.1 and wait for four failures. Retries
  // 4 s apart: short, yet long enough that the delivery log (re-read every 3 s) shows a delivery
  // in its `retrying` state (e2e/webhooks-journey.ui.spec.ts photographs it).
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_DELAYS: '4,4,4',
  WEBHOOK_TIMEOUT_MS: '2000',
  WORKER_INTERVAL_MS: '250',
};
let dropDatabase: (() => Promise<void>) | undefined;
const serverUrl = process.env.TEST_DATABASE_URL;
let state: Omit<E2eState, 'accounts'>;
if (serverUrl) {
  const name = `mn_e2e_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  delete env.DATA_DIR;
  dropDatabase = async () => {
    const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await sql.unsafe(`drop database if exists ${name} with (force)`);
    await sql.end();
  };
  state = {
    database: 'postgres',
    databaseUrl: env.DATABASE_URL,
    serverLog: path.join(STATE_DIR, 'server.log'),
  };
} else {
  env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-e2e-'));
  delete env.DATABASE_URL;
  state = { database: 'pglite', dataDir: env.DATA_DIR, serverLog: path.join(STATE_DIR, 'server.log') };
}

function admin(...args: string[]): Record<string, string> {
  const result = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/admin.ts', ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, string>;
}

// PostgreSQL is never seeded, so the tests' account is made with the admin CLI. On PGlite the
// tests use the demo account that the first `npm start` seeds and prints, as a new user would.
const accounts: E2eState['accounts'] = {};
if (serverUrl) {
  accounts.main = admin('account:create', '--email', 'main@e2e.test', '--plan', 'pro', '--early-access') as {
    api_key: string;
  };
  accounts.demo = admin('seed') as E2eState['accounts']['demo']; // the UI test signs in as the demo account
}
fs.writeFileSync(path.join(STATE_DIR, 'state.json'), JSON.stringify({ ...state, accounts }, null, 2));

const log = fs.openSync(state.serverLog, 'w');
const child = spawn(process.execPath, ['scripts/start.mjs'], {
  cwd: root,
  env,
  stdio: ['ignore', log, 'inherit'],
});
// The server's processes are this one's descendants: tests read their memory from /proc.
fs.writeFileSync(path.join(STATE_DIR, 'server.pid'), String(child.pid));
const stop = (signal: NodeJS.Signals) => child.kill(signal);
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
child.on('exit', async (code) => {
  await smtp.close().catch(() => {});
  await collector.close().catch(() => {});
  await dropDatabase?.().catch(() => {});
  if (state.dataDir) fs.rmSync(state.dataDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
