import fs from 'node:fs';
import { TRPCError } from '@trpc/server';
import { and, count, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccount,
  createApiKey,
  MAX_ACTIVE_API_KEYS,
  revokeApiKey,
} from '../../server/accounts/accounts';
import { createCaller } from '../../server/api/root';
import { openPglite } from '../../server/db/client';
import { apiKeys } from '../../server/db/schema';
import { AppError } from '../../server/errors';
import { runScript } from '../support/run-command';
import { startTestApp, type TestApp } from '../support/test-app';
import { migratedPgliteFolder } from '../support/test-database';

// At most 20 active (unrevoked) API keys per account, enforced in the one key-creation
// service that the settings app and the admin CLI both call.

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

const CAP_MESSAGE = 'at most 20 active API keys';

async function activeKeys(accountId: string) {
  const [row] = await app.db
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
  return row!.n;
}

/** An account that already has its one key (test-app) plus `more`. */
async function accountWithKeys(more: number) {
  const created = await app.createAccount();
  for (let i = 0; i < more; i++) await createApiKey(app.db, { accountId: created.account.id, name: `k${i}` });
  return created;
}

describe('at most 20 active API keys per account', () => {
  it('the 20th key is created, the 21st refused with a clear conflict; revoking one makes room again', async () => {
    expect(MAX_ACTIVE_API_KEYS).toBe(20);
    const { account } = await accountWithKeys(18);
    const twentieth = await createApiKey(app.db, { accountId: account.id, form: 'B', name: 'twentieth' });
    expect(await activeKeys(account.id)).toBe(20);
    const refused = await createApiKey(app.db, { accountId: account.id, name: 'one too many' }).catch(
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect({ code: (refused as AppError).code, message: (refused as AppError).message }).toEqual({
      code: 'conflict',
      message: 'An account can have at most 20 active API keys; revoke one before creating another',
    });
    expect(await activeKeys(account.id)).toBe(20);

    await revokeApiKey(app.db, twentieth.key.id, account.id);
    await createApiKey(app.db, { accountId: account.id, name: 'after revoking' });
    expect(await activeKeys(account.id)).toBe(20);
  });

  it('the cap is per account: another account creates keys as usual', async () => {
    await accountWithKeys(19);
    const other = await app.createAccount();
    await createApiKey(app.db, { accountId: other.account.id });
    expect(await activeKeys(other.account.id)).toBe(2);
  });

  it('30 concurrent creations on an account with one key make exactly 19 keys; the other 11 get the cap message', async () => {
    const { account } = await app.createAccount();
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        createApiKey(app.db, { accountId: account.id, name: `race ${i}` }),
      ),
    );
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect({ created: results.length - refused.length, refused: refused.length }).toEqual({
      created: 19,
      refused: 11,
    });
    for (const r of refused) expect((r.reason as AppError).message).toContain(CAP_MESSAGE);
    expect(await activeKeys(account.id)).toBe(20);
  });

  it("the settings app's keys.create surfaces the message as a CONFLICT", async () => {
    const { account } = await accountWithKeys(19);
    const ui = createCaller({
      db: app.db,
      services: app.services,
      accountId: account.id,
      clientAddress: null,
    });
    const err = await ui.keys.create({ name: 'too many', form: 'A' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect({ code: (err as TRPCError).code, message: (err as TRPCError).message }).toEqual({
      code: 'CONFLICT',
      message: expect.stringContaining(CAP_MESSAGE),
    });
    expect(await activeKeys(account.id)).toBe(20);
  });

  it('a key name with a NUL character is refused before anything is stored', async () => {
    const { account } = await app.createAccount();
    const err = await createApiKey(app.db, { accountId: account.id, name: 'bad\u0000name' }).catch(
      (e: unknown) => e,
    );
    expect({ code: (err as AppError).code, message: (err as AppError).message }).toEqual({
      code: 'validation_error',
      message: expect.stringContaining('NUL'),
    });
    expect(await activeKeys(account.id)).toBe(1);
  });
});

describe('the admin CLI refuses a 21st key with the message', () => {
  it('key:create on an account with 20 keys exits non-zero, prints the cap message on stderr and nothing on stdout', async () => {
    const serverUrl = process.env.TEST_DATABASE_URL;
    let env: Record<string, string>;
    let cleanup: () => Promise<void>;
    let accountId: string;
    if (serverUrl) {
      // The CLI gets the test's own PostgreSQL database.
      env = { DATABASE_URL: app.database.url! };
      const account = await createAccount(app.db, { email: `cli-${Date.now()}@example.com` });
      for (let i = 0; i < 20; i++) await createApiKey(app.db, { accountId: account.id });
      accountId = account.id;
      cleanup = async () => {};
    } else {
      // PGlite allows one process per data folder: prepare it here, close it, then run the CLI on it.
      const dataDir = await migratedPgliteFolder('key-cap');
      const database = await openPglite(dataDir);
      const account = await createAccount(database.db, { email: 'cli@example.com' });
      for (let i = 0; i < 20; i++) await createApiKey(database.db, { accountId: account.id });
      await database.close();
      env = { DATA_DIR: dataDir };
      accountId = account.id;
      cleanup = async () => fs.rmSync(dataDir, { recursive: true, force: true });
    }
    try {
      const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
      if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
      const run = await runScript('scripts/admin.ts', ['key:create', '--account', accountId], childEnv);
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr.trim() }).toEqual({
        code: 1,
        stdout: '',
        stderr: 'An account can have at most 20 active API keys; revoke one before creating another',
      });
    } finally {
      await cleanup();
    }
  }, 120_000);
});
