import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../server/accounts/accounts';
import { revokeAccountKey, rollApiKey } from '../../server/accounts/api-key-management';
import { operatorRevokeKey, operatorUpdateAccount } from '../../server/accounts/operator-console';
import { RequestCounter } from '../../server/accounts/request-counter';
import { FORMS, mapForms } from '../../server/rest/forms';
import { startTestApp, type TestApp } from '../support/test-app';

// A busy key is answered from what the instance last read of it, for a quarter of a second at
// most; every change to a key or to what its account may do returns only once no instance can
// still be trusting a read made before it. So a request made after the change returns sees it,
// on the instance that made the change and on every other.

let app: TestApp;
const rules = mapForms((form) => FORMS[form.name].rateLimits);
const OPERATOR = { label: 'test operator', accountId: null };

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

/** Sends `request` (which must be admitted) until `instance` answers one from memory. */
async function untilAnsweredFromMemory(instance: RequestCounter, request: () => Promise<boolean>) {
  for (let i = 0; i < 400; i++) {
    const before = instance.stats.keysTrusted;
    expect(await request()).toBe(true);
    if (instance.stats.keysTrusted > before) return;
  }
  throw new Error('the key was never answered from memory');
}

/** The key made busy on the app, through HTTP. */
const busyOnTheApp = (key: string) =>
  untilAnsweredFromMemory(
    app.services.requests,
    async () => (await app.request('/v1/notes?limit=1', { key })).status === 200,
  );

/** The same on another instance, which shares only the database. */
const busyOn = (instance: RequestCounter, key: string) =>
  untilAnsweredFromMemory(
    instance,
    async () =>
      (await instance.authenticateAndCount(app.db, key, { rules, now: new Date() }))?.limit.allowed === true,
  );

describe('keys answered from memory', () => {
  it('a busy key takes no statement to authenticate on most requests', async () => {
    const { key } = await app.createAccount();
    await busyOnTheApp(key);
    const { stats } = app.services.requests;
    const before = stats.keysTrusted;
    for (let i = 0; i < 100; i++) expect((await app.request('/v1/notes?limit=1', { key })).status).toBe(200);
    expect(stats.keysTrusted - before).toBeGreaterThan(50);
  });

  const changes = [
    {
      what: 'revoked in the settings app',
      change: (accountId: string, keyId: string) => revokeAccountKey(app.db, { accountId, keyId }),
    },
    {
      what: 'rolled with no overlap',
      change: (accountId: string, keyId: string) =>
        rollApiKey(app.db, { accountId, keyId, overlapSeconds: 0 }),
    },
    {
      what: 'revoked by an operator',
      change: (accountId: string, keyId: string) => operatorRevokeKey(app.db, OPERATOR, keyId, accountId),
    },
  ];
  it.each(changes)(
    'a busy key $what is refused on every instance as soon as that returns',
    async ({ change }) => {
      const { account, key, keyId } = await app.createAccount();
      const other = new RequestCounter();
      await busyOnTheApp(key);
      await busyOn(other, key);
      await change(account.id, keyId);
      expect(await other.authenticateAndCount(app.db, key, { rules, now: new Date() })).toBeNull();
      expect((await app.request('/v1/notes?limit=1', { key })).status).toBe(401);
      await other.close(app.db);
    },
  );

  it('early access taken away by an operator is refused on every instance as soon as that returns', async () => {
    const { account, key } = await app.createAccount();
    const other = new RequestCounter();
    await busyOnTheApp(key);
    await busyOn(other, key);
    await operatorUpdateAccount(app.db, OPERATOR, account.id, { earlyAccess: false });
    const counted = await other.authenticateAndCount(app.db, key, { rules, now: new Date() });
    expect(counted?.principal.account.earlyAccess).toBe(false);
    expect((await app.request('/v1/notes?limit=1', { key })).status).toBe(403);
    await other.close(app.db);
  });

  it('a key past its expiry is refused, even while what was read of it is trusted', async () => {
    const { account } = await app.createAccount();
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { plaintext: key } = await createApiKey(app.db, { accountId: account.id, expiresAt });
    const other = new RequestCounter();
    // The key's first request reads it in the statement that counts it; later ones by its lookup.
    const first = await other.authenticateAndCount(app.db, key, { rules, now: new Date() });
    expect(first?.principal.key.expiresAt?.toISOString()).toBe(expiresAt.toISOString());
    await busyOn(other, key);
    const trusted = other.stats.keysTrusted;
    const later = new Date(expiresAt.getTime() + 1);
    expect(await other.authenticateAndCount(app.db, key, { rules, now: later })).toBeNull();
    expect(other.stats.keysTrusted).toBe(trusted);
    await other.close(app.db);
  });

  it('a key revoked straight in the database, past the service, is refused within moments', async () => {
    const { key, keyId } = await app.createAccount();
    await busyOnTheApp(key);
    await app.db.execute(sql`update api_keys set revoked_at = now() where id = ${keyId}`);
    await expect
      .poll(async () => (await app.request('/v1/notes?limit=1', { key })).status, {
        timeout: 5_000,
        interval: 20,
      })
      .toBe(401);
  });
});
