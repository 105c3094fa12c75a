import { TRPCError } from '@trpc/server';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createApiKey, MAX_ACTIVE_API_KEYS, usableKey } from '../../server/accounts/accounts';
import { keyUsage } from '../../server/accounts/api-key-management';
import { KEY_USAGE_RETENTION_DAYS } from '../../server/accounts/usage-buffer';
import { createCaller } from '../../server/api/root';
import { apiKeys, apiKeyUsage } from '../../server/db/schema';
import { BrowserSession, trpcError } from '../support/browser-session';
import { startTestApp, type TestApp } from '../support/test-app';

// Keys can be renamed, rolled with an overlap, given an expiry, and show their usage. The API's
// clock is the test's, so an hour's overlap can end without waiting an hour.

let app: TestApp;
let clock = Date.now();
const HOUR = 3_600_000;

beforeAll(async () => {
  app = await startTestApp({ now: () => new Date(clock) });
});

afterAll(async () => {
  await app?.close();
});

const ui = (accountId: string) =>
  createCaller({ db: app.db, services: app.services, accountId, clientAddress: null });

async function expectCode(promise: Promise<unknown>, code: TRPCError['code'], message?: RegExp) {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  expect((err as TRPCError).code).toBe(code);
  if (message) expect((err as TRPCError).message).toMatch(message);
}

const status = async (key: string, form?: 'A' | 'B') =>
  (await app.request('/v1/notes?limit=1', { key, ...(form && { form }) })).status;

const PASSWORD = 'quiet-harbor-lantern-71';
let browsers = 0;

/** An account with early access and a browser signed in to the settings app as it, over HTTP. */
async function signedIn() {
  const account = await createAccount(app.db, {
    email: `keys-${++browsers}-${Date.now()}@example.com`,
    password: PASSWORD,
    earlyAccess: true,
    plan: 'pro',
  });
  const session = new BrowserSession(app.url, { 'x-forwarded-for': `198.51.100.${browsers % 250}` });
  const res = await session.signIn(account.email, PASSWORD);
  expect(res.status, res.text).toBe(200);
  return { account, session };
}

interface ListedKey {
  id: string;
  expiresAt: string | null;
  rolledTo: string | null;
}
interface IssuedKey {
  key: ListedKey;
  plaintext: string;
}

/** A tRPC mutation as the settings app's client posts it; its data, after checking the status. */
async function mutate<T>(session: BrowserSession, path: string, input: unknown): Promise<T> {
  const res = await session.mutate(path, input);
  expect(res.status, res.text).toBe(200);
  return res.json.result.data as T;
}

const listed = async (session: BrowserSession) => {
  const res = await session.query('keys.list');
  expect(res.status, res.text).toBe(200);
  return res.json.result.data as ListedKey[];
};

const revokedAt = async (id: string) =>
  (await app.db.select({ at: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, id)))[0]?.at;

describe('rolling a key with an overlap', () => {
  it('during a 1-hour overlap both keys answer 200; after it the old key gets 401 (in both forms and on the recorder API), the new one 200', async () => {
    clock = Date.now();
    const { account, key: oldKey, keyId } = await app.createAccount();
    expect(await status(oldKey)).toBe(200);
    const rolled = await ui(account.id).keys.roll({ id: keyId, overlapSeconds: 3_600 });
    expect(rolled.plaintext).toMatch(/^mnk_/);
    expect(rolled.plaintext).not.toBe(oldKey);
    expect(rolled.previous).toMatchObject({ id: keyId, rolledTo: rolled.key.id });
    expect(Date.parse(rolled.previous.expiresAt!)).toBeGreaterThan(clock + HOUR - 5_000);
    expect(Date.parse(rolled.previous.expiresAt!)).toBeLessThanOrEqual(Date.now() + HOUR);
    expect(rolled.key).toMatchObject({
      name: rolled.previous.name,
      form: 'A',
      expiresAt: null,
      rolledTo: null,
    });

    expect(await status(oldKey)).toBe(200);
    expect(await status(rolled.plaintext)).toBe(200);
    // Both are listed while the old one works: the replacement first, newest first.
    const listed = await ui(account.id).keys.list();
    expect(listed.map((k) => k.id)).toEqual([rolled.key.id, keyId]);

    clock += HOUR - 60_000; // 59 minutes later
    expect(await status(oldKey)).toBe(200);
    clock += 2 * 60_000; // 61 minutes after the roll
    const refused = await app.request('/v1/notes', { key: oldKey });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({
      error: { code: 'invalid_api_key', message: 'Missing, invalid, revoked or expired API key' },
    });
    expect(await status(oldKey, 'B')).toBe(401);
    const recorder = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key: oldKey,
      json: { platform: 'zoom' },
    });
    expect(recorder.status).toBe(401);
    expect(await status(rolled.plaintext)).toBe(200);
    clock = Date.now();
  });

  it('overlap 0 revokes the old key at once; a key is rolled once, then its replacement is the one to roll', async () => {
    clock = Date.now();
    const { account, key: oldKey, keyId } = await app.createAccount({ form: 'B' });
    const rolled = await ui(account.id).keys.roll({ id: keyId, overlapSeconds: 0 });
    expect(await status(oldKey)).toBe(401);
    expect(await status(rolled.plaintext)).toBe(200);
    expect(rolled.key.form).toBe('B');
    expect((await ui(account.id).keys.list()).map((k) => k.id)).toEqual([rolled.key.id]);
    await expectCode(ui(account.id).keys.roll({ id: keyId, overlapSeconds: 0 }), 'NOT_FOUND');

    const again = await ui(account.id).keys.roll({ id: rolled.key.id, overlapSeconds: 86_400 });
    await expectCode(
      ui(account.id).keys.roll({ id: rolled.key.id, overlapSeconds: 3_600 }),
      'CONFLICT',
      /already been rolled: roll its replacement instead/,
    );
    expect(await status(rolled.plaintext)).toBe(200);
    expect(await status(again.plaintext)).toBe(200);
  });

  it('an overlap outside 0..7 days, a key of another account or an unknown id is refused and changes nothing', async () => {
    const { account, keyId } = await app.createAccount();
    const other = await app.createAccount();
    for (const overlapSeconds of [-1, 604_801, 1.5, Number.MAX_SAFE_INTEGER])
      await expectCode(ui(account.id).keys.roll({ id: keyId, overlapSeconds }), 'BAD_REQUEST');
    await expectCode(ui(other.account.id).keys.roll({ id: keyId, overlapSeconds: 0 }), 'NOT_FOUND');
    await expectCode(
      ui(account.id).keys.roll({ id: '00000000-0000-4000-8000-000000000000', overlapSeconds: 0 }),
      'NOT_FOUND',
    );
    const [row] = await app.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(row).toMatchObject({ revokedAt: null, expiresAt: null, rolledTo: null });
    expect(await app.db.select().from(apiKeys).where(eq(apiKeys.accountId, account.id))).toHaveLength(1);
  });

  it('keys in their overlap count towards the 20; at the cap a key rolls only with no overlap', async () => {
    const { account, keyId } = await app.createAccount();
    for (let i = 1; i < MAX_ACTIVE_API_KEYS; i++)
      await createApiKey(app.db, { accountId: account.id, name: `k${i}` });
    await expectCode(
      ui(account.id).keys.roll({ id: keyId, overlapSeconds: 3_600 }),
      'CONFLICT',
      /at most 20 active API keys; roll this key with no overlap, or revoke another key first/,
    );
    const rolled = await ui(account.id).keys.roll({ id: keyId, overlapSeconds: 0 });
    expect(await ui(account.id).keys.list()).toHaveLength(MAX_ACTIVE_API_KEYS);
    expect(rolled.previous.id).toBe(keyId);
  });
});

describe('expiry, rename and usage', () => {
  it('a key created with an expiry works until then and answers 401 after; it leaves the list and frees its place under the 20-key cap', async () => {
    clock = Date.now();
    const { account } = await app.createAccount();
    const expiresAt = new Date(Date.now() + 2 * HOUR).toISOString();
    const created = await ui(account.id).keys.create({ name: 'CI', form: 'A', expiresAt });
    expect(created.key.expiresAt).toBe(expiresAt);
    expect(await status(created.plaintext)).toBe(200);
    clock = Date.parse(expiresAt) - 1;
    expect(await status(created.plaintext)).toBe(200);
    clock = Date.parse(expiresAt);
    expect(await status(created.plaintext)).toBe(401);
    clock = Date.now();

    // Once expired at the database's time too (the list and the 20-key cap go by it), the key
    // leaves the list and its place under the cap. The test cannot move the database's clock, so
    // it moves the expiry into the past instead of waiting for it.
    const brief = await ui(account.id).keys.create({
      name: 'brief',
      form: 'A',
      expiresAt: new Date(Date.now() + HOUR).toISOString(),
    });
    expect((await ui(account.id).keys.list()).map((k) => k.id)).toContain(brief.key.id);
    await app.db
      .update(apiKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(apiKeys.id, brief.key.id));
    expect((await ui(account.id).keys.list()).map((k) => k.id)).not.toContain(brief.key.id);
    const [active] = await app.db
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, account.id), usableKey()));
    expect(active?.n).toBe(2);
  });

  it('an expiry in the past, now, more than 3 years away or not a date is refused (400) and creates nothing', async () => {
    const { account } = await app.createAccount();
    for (const expiresAt of [
      new Date(Date.now() - 1000).toISOString(),
      new Date(Date.now() + 4 * 365 * 86_400_000).toISOString(),
      'tomorrow',
      '2026-13-01T00:00:00Z',
    ])
      await expectCode(ui(account.id).keys.create({ name: 'x', form: 'A', expiresAt }), 'BAD_REQUEST');
    expect(await ui(account.id).keys.list()).toHaveLength(1);
  });

  it('rename changes the name only (the key keeps working); blank, over-long or another account’s key is refused', async () => {
    const { account, key, keyId } = await app.createAccount();
    const other = await app.createAccount();
    const renamed = await ui(account.id).keys.rename({ id: keyId, name: '  Production server  ' });
    expect(renamed.name).toBe('Production server');
    expect((await ui(account.id).keys.list())[0]?.name).toBe('Production server');
    expect(await status(key)).toBe(200);
    await expectCode(ui(account.id).keys.rename({ id: keyId, name: '   ' }), 'BAD_REQUEST');
    await expectCode(ui(account.id).keys.rename({ id: keyId, name: 'x'.repeat(101) }), 'BAD_REQUEST');
    await expectCode(ui(account.id).keys.rename({ id: keyId, name: 'a\u0000b' }), 'BAD_REQUEST');
    await expectCode(ui(other.account.id).keys.rename({ id: keyId, name: 'stolen' }), 'NOT_FOUND');
    expect((await ui(account.id).keys.list())[0]?.name).toBe('Production server');
  });

  it('usage counts every request made with the key per UTC day and this minute (refused ones too), for that key only; 7 days charted oldest first', async () => {
    // Noon UTC, so the minutes below stay within one day.
    const noon = new Date();
    noon.setUTCHours(12, 0, 5, 0);
    clock = noon.getTime();
    const { account, key, keyId } = await app.createAccount({ form: 'B' });
    const second = await ui(account.id).keys.create({ name: 'second', form: 'B' });
    for (let i = 0; i < 3; i++) expect(await status(key)).toBe(200);
    expect(await status(second.plaintext)).toBe(200);
    // A request the recorder API authenticates counts too.
    await app.recordNote(key, { transcribe: false });
    clock += 60_000;
    expect(await status(key)).toBe(200);
    // Yesterday's requests land in yesterday's bar.
    clock -= 86_400_000;
    expect(await status(key)).toBe(200);
    clock += 86_400_000;

    // The settings app lists the same figures, read at the real time (keys.list); here at the test's.
    const listed = await ui(account.id).keys.list();
    expect(listed.find((k) => k.id === keyId)?.usage?.last7Days).toHaveLength(7);
    const usage = await keyUsage(app.db, [keyId, second.key.id], new Date(clock));
    const mine = usage.get(keyId)!;
    expect(mine.today).toBe(5);
    expect(mine.thisMinute).toBe(1);
    expect(mine.last7Days).toHaveLength(7);
    expect(mine.last7Days.map((d) => d.requests)).toEqual([0, 0, 0, 0, 0, 1, 5]);
    expect(mine.last7Days[6]?.day).toBe(noon.toISOString().slice(0, 10));
    expect(usage.get(second.key.id)).toMatchObject({ today: 1, thisMinute: 0 });
    clock = Date.now();
  });

  it('Form B requests refused by the 100-a-minute limit still count as the key’s requests', async () => {
    const minute = new Date();
    minute.setUTCHours(12, 30, 1, 0);
    clock = minute.getTime();
    const { account, key, keyId } = await app.createAccount({ form: 'B' });
    const answers = await Promise.all(Array.from({ length: 103 }, () => status(key)));
    expect(answers.filter((s) => s === 429)).toHaveLength(3);
    expect((await ui(account.id).keys.list()).map((k) => k.id)).toEqual([keyId]);
    expect((await keyUsage(app.db, [keyId], new Date(clock))).get(keyId)).toMatchObject({
      today: 103,
      thisMinute: 103,
    });
    clock = Date.now();
  });

  it(`writing a key's usage prunes its own days older than ${KEY_USAGE_RETENTION_DAYS}, no one else's`, async () => {
    clock = Date.now();
    const { key, keyId } = await app.createAccount();
    const other = await app.createAccount();
    const old = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    const row = (id: string, day: string) => ({
      keyId: id,
      day,
      requests: 9,
      minuteStart: new Date(`${day}T00:00:00Z`),
      minuteRequests: 1,
    });
    await app.db
      .insert(apiKeyUsage)
      .values([
        row(keyId, old(KEY_USAGE_RETENTION_DAYS + 5)),
        row(keyId, old(KEY_USAGE_RETENTION_DAYS - 1)),
        row(other.keyId, old(KEY_USAGE_RETENTION_DAYS + 5)),
      ]);
    expect(await status(key)).toBe(200);
    await app.flushCounts();
    const days = async (id: string) =>
      (
        await app.db
          .select()
          .from(apiKeyUsage)
          .where(and(eq(apiKeyUsage.keyId, id)))
      )
        .map((r) => r.day)
        .sort();
    expect(await days(keyId)).toEqual([old(KEY_USAGE_RETENTION_DAYS - 1), old(0)].sort());
    expect(await days(other.keyId)).toEqual([old(KEY_USAGE_RETENTION_DAYS + 5)]);
  });
});

describe('rolling a key keeps its expiry', () => {
  it('the replacement of a key expiring in 30 days expires at the same instant and answers 401 from then on, while the rolled key stops at the end of its overlap', async () => {
    clock = Date.now();
    const { session } = await signedIn();
    const expiresAt = new Date(Date.now() + 30 * 24 * HOUR).toISOString();
    const created = await mutate<IssuedKey>(session, 'keys.create', {
      name: 'Contractor',
      form: 'A',
      expiresAt,
    });
    const rolled = await mutate<IssuedKey & { previous: ListedKey }>(session, 'keys.roll', {
      id: created.key.id,
      overlapSeconds: 3_600,
    });
    expect(rolled.key.expiresAt).toBe(expiresAt);
    expect(Date.parse(rolled.previous.expiresAt!)).toBeLessThanOrEqual(Date.now() + HOUR);
    expect((await listed(session)).find((k) => k.id === rolled.key.id)?.expiresAt).toBe(expiresAt);

    clock = Date.now() + 2 * HOUR;
    expect(await status(created.plaintext)).toBe(401);
    expect(await status(rolled.plaintext)).toBe(200);
    clock = Date.parse(expiresAt) - 1;
    expect(await status(rolled.plaintext)).toBe(200);
    clock = Date.parse(expiresAt);
    expect(await status(rolled.plaintext)).toBe(401);
    expect(await status(rolled.plaintext, 'B')).toBe(401);
    clock = Date.now();
  });

  it('a key expiring before the overlap would end keeps its own expiry, and so does its replacement; with no overlap the replacement keeps it too', async () => {
    clock = Date.now();
    const { session } = await signedIn();
    const expiresAt = new Date(Date.now() + 2 * HOUR).toISOString();
    const created = await mutate<IssuedKey>(session, 'keys.create', { name: 'Demo', form: 'B', expiresAt });
    const rolled = await mutate<IssuedKey & { previous: ListedKey }>(session, 'keys.roll', {
      id: created.key.id,
      overlapSeconds: 604_800,
    });
    expect(rolled.previous.expiresAt).toBe(expiresAt);
    expect(rolled.key.expiresAt).toBe(expiresAt);
    clock = Date.parse(expiresAt) - 1;
    expect(await status(created.plaintext)).toBe(200);
    expect(await status(rolled.plaintext)).toBe(200);
    clock = Date.parse(expiresAt);
    expect(await status(created.plaintext)).toBe(401);
    expect(await status(rolled.plaintext)).toBe(401);

    clock = Date.now();
    const again = await mutate<IssuedKey>(session, 'keys.roll', { id: rolled.key.id, overlapSeconds: 0 });
    expect(again.key.expiresAt).toBe(expiresAt);
    expect(await status(rolled.plaintext)).toBe(401);
    expect(await status(again.plaintext)).toBe(200);
  });
});

describe('revoking a replacement during its overlap', () => {
  /** A signed-in account whose key was rolled with an hour's overlap, and a second key of its own. */
  async function rolledWithOverlap() {
    clock = Date.now();
    const { account, session } = await signedIn();
    const old = await mutate<IssuedKey>(session, 'keys.create', { name: 'Server', form: 'A' });
    const other = await mutate<IssuedKey>(session, 'keys.create', { name: 'Laptop', form: 'A' });
    const replacement = await mutate<IssuedKey>(session, 'keys.roll', {
      id: old.key.id,
      overlapSeconds: 3_600,
    });
    return { account, session, old, other, replacement };
  }

  it('without alsoRevokeReplaced only the replacement stops; the key it replaced keeps working until its overlap ends', async () => {
    const { session, old, replacement } = await rolledWithOverlap();
    const answer = await mutate<{ replacedRevoked: string | null }>(session, 'keys.revoke', {
      id: replacement.key.id,
    });
    expect(answer).toEqual({ ok: true, replacedRevoked: null });
    expect(await status(replacement.plaintext)).toBe(401);
    expect(await status(old.plaintext)).toBe(200);
    expect((await listed(session)).map((k) => k.id)).toContain(old.key.id);
    clock = Date.now() + HOUR + 60_000;
    expect(await status(old.plaintext)).toBe(401);
    clock = Date.now();
  });

  it('with alsoRevokeReplaced the replacement and the key it replaced stop together, at one instant; the account’s other keys keep working', async () => {
    const { session, old, other, replacement } = await rolledWithOverlap();
    const answer = await mutate<{ replacedRevoked: string | null }>(session, 'keys.revoke', {
      id: replacement.key.id,
      alsoRevokeReplaced: true,
    });
    expect(answer).toEqual({ ok: true, replacedRevoked: old.key.id });
    expect(await status(replacement.plaintext)).toBe(401);
    expect(await status(old.plaintext)).toBe(401);
    expect(await status(other.plaintext)).toBe(200);
    expect((await listed(session)).map((k) => k.id)).toEqual([other.key.id]);
    const [replacementAt, oldAt] = [await revokedAt(replacement.key.id), await revokedAt(old.key.id)];
    expect(oldAt).toBeInstanceOf(Date);
    expect(oldAt?.getTime()).toBe(replacementAt?.getTime());
  });

  it('alsoRevokeReplaced reaches only the key directly replaced: the key before that keeps its own overlap, and a key that replaced none is revoked alone', async () => {
    const { session, old, other, replacement } = await rolledWithOverlap();
    // The replacement rolled in turn: the newest key replaced the replacement, not the first key.
    const newest = await mutate<IssuedKey>(session, 'keys.roll', {
      id: replacement.key.id,
      overlapSeconds: 3_600,
    });
    expect(await mutate(session, 'keys.revoke', { id: newest.key.id, alsoRevokeReplaced: true })).toEqual({
      ok: true,
      replacedRevoked: replacement.key.id,
    });
    expect(await status(newest.plaintext)).toBe(401);
    expect(await status(replacement.plaintext)).toBe(401);
    expect(await status(old.plaintext)).toBe(200);
    expect(await mutate(session, 'keys.revoke', { id: other.key.id, alsoRevokeReplaced: true })).toEqual({
      ok: true,
      replacedRevoked: null,
    });
    expect(await status(other.plaintext)).toBe(401);
    expect(await status(old.plaintext)).toBe(200);
  });

  it('another account’s attempt, with or without alsoRevokeReplaced, is a 404 and changes nothing', async () => {
    const owner = await rolledWithOverlap();
    const { session: stranger } = await signedIn();
    for (const input of [
      { id: owner.replacement.key.id },
      { id: owner.replacement.key.id, alsoRevokeReplaced: true },
      { id: owner.old.key.id, alsoRevokeReplaced: true },
    ]) {
      const res = await stranger.mutate('keys.revoke', input);
      expect(res.status).toBe(404);
      expect(res.json).toEqual(trpcError('NOT_FOUND', 404, 'keys.revoke'));
    }
    for (const key of [owner.old, owner.replacement, owner.other]) {
      expect(await revokedAt(key.key.id)).toBeNull();
      expect(await status(key.plaintext)).toBe(200);
    }
    expect(await listed(owner.session)).toHaveLength(3);
  });

  it('a key of another account that names the revoked key as its replacement (no roll makes one) is left working', async () => {
    const { session, old, replacement } = await rolledWithOverlap();
    const stranger = await app.createAccount();
    await app.db.update(apiKeys).set({ rolledTo: replacement.key.id }).where(eq(apiKeys.id, stranger.keyId));
    expect(
      await mutate(session, 'keys.revoke', { id: replacement.key.id, alsoRevokeReplaced: true }),
    ).toEqual({ ok: true, replacedRevoked: old.key.id });
    expect(await status(old.plaintext)).toBe(401);
    expect(await revokedAt(stranger.keyId)).toBeNull();
    expect(await status(stranger.key)).toBe(200);
  });
});
