import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey, verifyPassword } from '../server/accounts/accounts';
import { migrateDatabase, openPglite, openPostgres, type Database } from '../server/db/client';
import { accountAuditLog, accounts, apiKeys } from '../server/db/schema';
import { PLATFORMS } from '../server/domain';
import { parseEnv } from '../server/env';
import { createAppHandlers } from '../server/runtime/app-handlers';
import { createServices } from '../server/services';
import { type CommandRun, runScript } from '../test/support/run-command';
import { runAdmin } from './admin-cli';

// The admin command line (docs/rules.md#admin-command-line) against a database of its own. PGlite:
// a fresh DATA_DIR. PostgreSQL (TEST_DATABASE_URL): a fresh database on that server. Three runs
// are real subprocesses of `scripts/admin.ts` (the first, which migrates a fresh database; one
// refused while another process holds PGlite's folder; one refused command line); the others
// run the same command line in this process, with its output collected and its exit code
// returned (a subprocess costs seconds of CPU, mostly loading the server's modules).

const serverUrl = process.env.TEST_DATABASE_URL;
const CLI_TIMEOUT = 120_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const API_KEY = /^mnk_[0-9A-Za-z]{40}$/;

let dataDir: string;
let databaseUrl: string | undefined;
let databaseName: string | undefined;
let emails = 0;
const email = (label: string) => `${label}-${++emails}-${Date.now()}@example.com`;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-admin-test-'));
  if (serverUrl) {
    databaseName = `mn_admin_${randomBytes(6).toString('hex')}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${databaseName}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
  }
  // Nothing is migrated here: the first CLI run (account:create, first in this file) meets a
  // fresh database and has to apply the migrations itself.
});

afterAll(async () => {
  if (databaseName) {
    const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
    await admin.end();
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** `tsx scripts/admin.ts ...args`, pointed at this file's database. */
function admin(args: string[]): Promise<CommandRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return runScript('scripts/admin.ts', args, env);
}

/** The same command line run in this process, on the same database. */
async function adminHere(args: string[]): Promise<CommandRun> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    openDatabase,
  });
  return { code, stdout, stderr };
}

/** Exit 0 and exactly one JSON object on one line of stdout. */
function jsonResult(run: CommandRun): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe('');
  const value = JSON.parse(lines[0]!);
  expect(typeof value).toBe('object');
  expect(Array.isArray(value)).toBe(false);
  expect(value).not.toBeNull();
  return value;
}

/** Exit non-zero, nothing on stdout, a message on stderr. */
function failure(run: CommandRun): string {
  expect(run.code).not.toBe(0);
  expect(run.code).not.toBeNull();
  expect(run.stdout).toBe('');
  expect(run.stderr.trim()).not.toBe('');
  expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  return run.stderr;
}

async function openDatabase(): Promise<Database> {
  const database = databaseUrl ? await openPostgres(databaseUrl, { max: 2 }) : await openPglite(dataDir);
  try {
    await migrateDatabase(database);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** Opens the CLI's database in this process (only while no CLI runs: PGlite is single-process), then closes it. */
async function withDb<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase();
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

/** GET /v1/notes through the real handlers over the CLI's database. */
async function listNotes(database: Database, key: string, query = '') {
  const services = createServices(parseEnv({}));
  const handlers = createAppHandlers({
    getDatabase: async () => database,
    services,
    cron: { secret: undefined, openWithoutSecret: false },
  });
  const res = await handlers.v1(
    new Request(`http://x/v1/notes${query}`, { headers: { authorization: `Bearer ${key}` } }),
  );
  // The key's usage is written now, before the caller closes the database.
  await services.requests.close(database.db);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, json: (await res.json()) as any };
}

async function setupAccount(opts: { earlyAccess?: boolean; form?: 'A' | 'B' } = {}) {
  return withDb(async ({ db }) => {
    const account = await createAccount(db, {
      email: email('setup'),
      plan: 'pro',
      earlyAccess: opts.earlyAccess ?? true,
    });
    const { key, plaintext } = await createApiKey(db, { accountId: account.id, form: opts.form ?? 'A' });
    return { accountId: account.id, email: account.email, keyId: key.id, key: plaintext };
  });
}

describe('admin CLI', () => {
  it(
    'account:create --email --plan pro --early-access --form B prints one JSON object {account_id,email,key_id,api_key,form} and the key works',
    async () => {
      const address = email('create');
      const out = jsonResult(
        await admin(['account:create', '--email', address, '--plan', 'pro', '--early-access', '--form', 'B']),
      );
      expect(out).toStrictEqual({
        account_id: expect.stringMatching(UUID),
        email: address,
        key_id: expect.stringMatching(UUID),
        api_key: expect.stringMatching(API_KEY),
        form: 'B',
      });
      expect(Object.keys(out)).toStrictEqual(['account_id', 'email', 'key_id', 'api_key', 'form']);

      await withDb(async (database) => {
        const [account] = await database.db
          .select()
          .from(accounts)
          .where(eq(accounts.id, out.account_id as string));
        expect(account).toMatchObject({ email: address, plan: 'pro', earlyAccess: true });
        const [key] = await database.db
          .select()
          .from(apiKeys)
          .where(eq(apiKeys.id, out.key_id as string));
        // Only the hash, the prefix and the last four characters are stored.
        expect(key).toMatchObject({
          accountId: out.account_id,
          form: 'B',
          keyHash: createHash('sha256')
            .update(out.api_key as string)
            .digest('hex'),
          prefix: (out.api_key as string).slice(0, 8),
          lastFour: (out.api_key as string).slice(-4),
          revokedAt: null,
        });
        // A Form B key of an early-access account: a Form B empty page.
        const res = await listNotes(database, out.api_key as string);
        expect(res).toStrictEqual({ status: 200, json: { data: [], next_cursor: null, has_more: false } });
      });
    },
    CLI_TIMEOUT,
  );

  it(
    'account:create with an email that exists already exits non-zero, message on stderr, nothing on stdout',
    async () => {
      const existing = await setupAccount();
      const stderr = failure(
        await adminHere(['account:create', '--email', existing.email.toUpperCase(), '--plan', 'pro']),
      );
      expect(stderr).toMatch(/already exists/i);
      await withDb(async ({ db }) => {
        const rows = await db.select().from(accounts);
        expect(rows.filter((a) => a.email.toLowerCase() === existing.email.toLowerCase())).toHaveLength(1);
      });
    },
    CLI_TIMEOUT,
  );

  it(
    'account:update --account ID --plan enterprise --daily-limit 500 --early-access false updates the account; its key then gets 403',
    async () => {
      const setup = await setupAccount();
      const out = jsonResult(
        await adminHere([
          'account:update',
          '--account',
          setup.accountId,
          '--plan',
          'enterprise',
          '--daily-limit',
          '500',
          '--early-access',
          'false',
        ]),
      );
      expect(out).toMatchObject({ account_id: setup.accountId });
      await withDb(async (database) => {
        const [account] = await database.db.select().from(accounts).where(eq(accounts.id, setup.accountId));
        expect(account).toMatchObject({
          email: setup.email,
          plan: 'enterprise',
          dailyLimit: 500,
          earlyAccess: false,
        });
        const res = await listNotes(database, setup.key);
        expect(res).toStrictEqual({
          status: 403,
          json: { error: { code: 'forbidden', message: expect.any(String) } },
        });
        // The CLI's changes are in the audit log the operator console shows.
        const audit = await database.db
          .select()
          .from(accountAuditLog)
          .where(eq(accountAuditLog.accountId, setup.accountId));
        expect(
          audit.map((e) => [e.action, e.detail]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        ).toEqual([
          ['daily_limit.change', { from: null, to: 500 }],
          ['early_access.revoke', { from: true, to: false }],
          ['plan.change', { from: 'pro', to: 'enterprise' }],
        ]);
        for (const entry of audit) {
          expect(entry.actor).toMatch(/^admin CLI \(.+@.+\)$/);
          expect(entry.actorAccountId).toBeNull();
        }
      });
    },
    CLI_TIMEOUT,
  );

  it(
    'key:create --account ID --form A --name ci → {key_id,api_key,form}; with PGlite it is refused ("in use by another process") while another process holds the data folder, and works once that closes',
    async () => {
      const setup = await setupAccount();
      const args = ['key:create', '--account', setup.accountId, '--form', 'A', '--name', 'ci'];

      if (!serverUrl) {
        const held = await openPglite(dataDir);
        let blocked: CommandRun;
        try {
          blocked = await admin(args);
        } finally {
          await held.close();
        }
        expect(failure(blocked)).toContain('in use by another process');
        await withDb(async ({ db }) => {
          expect(await db.select().from(apiKeys).where(eq(apiKeys.accountId, setup.accountId))).toHaveLength(
            1,
          );
        });
      }

      const out = jsonResult(await adminHere(args));
      expect(out).toStrictEqual({
        key_id: expect.stringMatching(UUID),
        api_key: expect.stringMatching(API_KEY),
        form: 'A',
      });
      expect(Object.keys(out)).toStrictEqual(['key_id', 'api_key', 'form']);
      expect(out.api_key).not.toBe(setup.key);
      await withDb(async (database) => {
        const [key] = await database.db
          .select()
          .from(apiKeys)
          .where(eq(apiKeys.id, out.key_id as string));
        expect(key).toMatchObject({ accountId: setup.accountId, form: 'A', name: 'ci', revokedAt: null });
        const res = await listNotes(database, out.api_key as string);
        expect(res).toStrictEqual({ status: 200, json: { data: [], next_cursor: null, has_more: false } });
      });
    },
    CLI_TIMEOUT * 2,
  );

  it(
    'key:revoke --key ID → {"key_id","revoked":true}; the key then gets 401 invalid_api_key',
    async () => {
      const setup = await setupAccount();
      const out = jsonResult(await adminHere(['key:revoke', '--key', setup.keyId]));
      expect(out).toStrictEqual({ key_id: setup.keyId, revoked: true });
      await withDb(async (database) => {
        const res = await listNotes(database, setup.key);
        expect(res).toStrictEqual({
          status: 401,
          json: { error: { code: 'invalid_api_key', message: expect.any(String) } },
        });
      });
    },
    CLI_TIMEOUT,
  );

  describe('refused commands', () => {
    // The accounts before any of them ran: a refused command changes nothing, e.g. no account
    // appears for the email it named. (Checked once after all five: each look opens the database.)
    let before: { id: string }[];
    beforeAll(async () => {
      before = await withDb(({ db }) => db.select({ id: accounts.id }).from(accounts));
    });

    it.each([
      [
        'an unknown command, in a subprocess',
        admin,
        ['frobnicate', '--email', 'bad-command@example.com'],
        /Unknown command/,
        /Usage/,
      ],
      [
        '--plan gold',
        adminHere,
        ['account:create', '--email', 'bad-plan@example.com', '--plan', 'gold'],
        /--plan/,
        /free/,
      ],
      [
        '--form C',
        adminHere,
        ['account:create', '--email', 'bad-form@example.com', '--form', 'C'],
        /--form/,
        /A or B/,
      ],
      ['a missing --email', adminHere, ['account:create', '--plan', 'pro'], /--email/, /Usage/],
      [
        'a malformed --account',
        adminHere,
        ['account:update', '--account', 'not-a-uuid', '--plan', 'pro'],
        /--account/,
        /UUID/i,
      ],
    ])(
      '%s exits non-zero with a message on stderr, stdout empty',
      async (_label, run, args, message, detail) => {
        const stderr = failure(await run(args));
        expect(stderr).toMatch(message);
        expect(stderr).toMatch(detail);
      },
      CLI_TIMEOUT,
    );

    it('none of them created an account', async () => {
      const after = await withDb(({ db }) =>
        db.select({ id: accounts.id, email: accounts.email }).from(accounts),
      );
      expect(after.filter((a) => !before.some((b) => b.id === a.id))).toStrictEqual([]);
      expect(after).toHaveLength(before.length);
    });
  });

  it(
    'seed → {account_id,email,password,key_id,api_key} with progress on stderr; its key lists 12 notes on every platform',
    async () => {
      const run = await adminHere(['seed']);
      const out = jsonResult(run);
      expect(out).toMatchObject({
        account_id: expect.stringMatching(UUID),
        email: expect.stringMatching(/@/),
        password: expect.any(String),
        key_id: expect.stringMatching(UUID),
        api_key: expect.stringMatching(API_KEY),
        notes: 12,
      });
      expect((out.password as string).length).toBeGreaterThanOrEqual(8);
      expect(run.stderr.trim()).not.toBe('');
      expect(run.stderr).not.toContain(out.api_key as string);

      // After the CLI has exited: the same database, through the real /v1 handlers.
      await withDb(async (database) => {
        const [account] = await database.db
          .select()
          .from(accounts)
          .where(eq(accounts.id, out.account_id as string));
        expect(account).toMatchObject({ email: out.email, earlyAccess: true });
        expect(await verifyPassword(out.password as string, account!.passwordHash!)).toBe(true);

        const res = await listNotes(database, out.api_key as string, '?limit=100');
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({ next_cursor: null, has_more: false });
        const notes = res.json.data as {
          id: string;
          platform: string;
          transcript: unknown[];
          created_at: string;
        }[];
        expect(notes).toHaveLength(12);
        expect(new Set(notes.map((n) => n.id)).size).toBe(12);
        expect([...new Set(notes.map((n) => n.platform))].sort()).toStrictEqual([...PLATFORMS].sort());
        for (const note of notes) expect(note.transcript.length).toBeGreaterThan(0);
        // Newest first.
        const created = notes.map((n) => n.created_at);
        expect(created).toStrictEqual([...created].sort().reverse());
      });
    },
    CLI_TIMEOUT,
  );
});
