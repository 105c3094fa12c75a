import http from 'node:http';
import { TRPCError } from '@trpc/server';
import bcrypt from 'bcryptjs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PASSWORD_HASH_COST } from '../../server/accounts/accounts';
import { createCaller } from '../../server/api/root';
import { accounts, apiKeys, deliveries, meetings, webhookEndpoints } from '../../server/db/schema';
import { startTestApp, type TestApp } from '../support/test-app';

// The settings app's procedures, called directly. Every resource is scoped to the session's
// account: a second account can neither see nor change the first one's things.

let app: TestApp;
let receiver: http.Server;
let receiverUrl = '';
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  app = await startTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '1,1,1' },
    worker: true,
  });
});
afterAll(async () => {
  await app?.close();
  receiver?.close();
});

const callerFor = (accountId: string | null) =>
  createCaller({ db: app.db, services: app.services, accountId, clientAddress: null });

async function expectCode(promise: Promise<unknown>, code: TRPCError['code']) {
  await expect(promise).rejects.toSatisfy((err: unknown) => err instanceof TRPCError && err.code === code);
}

/** How long a test waits for the worker to deliver a webhook, and how often it looks. */
const DELIVERED = { timeout: 10_000, interval: 100 };

describe('cross-account isolation', () => {
  let owner: Awaited<ReturnType<TestApp['createAccount']>>;
  let ownerUi: ReturnType<typeof callerFor>;
  let otherUi: ReturnType<typeof callerFor>;
  let keyId: string;
  let endpointId: string;
  let noteId: string;
  let deliveryId: string;

  beforeAll(async () => {
    owner = await app.createAccount();
    const other = await app.createAccount();
    ownerUi = callerFor(owner.account.id);
    otherUi = callerFor(other.account.id);
    keyId = (await ownerUi.keys.create({ name: 'CI', form: 'B' })).key.id;
    endpointId = (
      await ownerUi.webhooks.create({ url: receiverUrl, events: ['meeting.completed'], form: 'A' })
    ).endpoint.id;
    noteId = await app.recordNote(owner.key, {
      title: 'Owner meeting',
      segments: [{ speaker: 'Ana', content: 'The zebra budget is approved.', start_time: 0, end_time: 3 }],
    });
    deliveryId = await vi.waitFor(async () => {
      const [delivery] = (await ownerUi.webhooks.deliveries({ id: endpointId })).items;
      if (!delivery) throw new Error('no delivery in the log yet');
      return delivery.id;
    }, DELIVERED);
  });

  it('keys of another account are not listed and cannot be revoked', async () => {
    expect((await otherUi.keys.list()).map((k) => k.id)).not.toContain(keyId);
    await expectCode(otherUi.keys.revoke({ id: keyId }), 'NOT_FOUND');
    const [row] = await app.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(row!.revokedAt).toBeNull();
  });

  it("endpoints, deliveries and their actions are the owner's only", async () => {
    expect(await otherUi.webhooks.list()).toEqual([]);
    await expectCode(otherUi.webhooks.get({ id: endpointId }), 'NOT_FOUND');
    await expectCode(otherUi.webhooks.deliveries({ id: endpointId }), 'NOT_FOUND');
    await expectCode(otherUi.webhooks.sendTest({ id: endpointId }), 'NOT_FOUND');
    await expectCode(otherUi.webhooks.resend({ deliveryId }), 'NOT_FOUND');
    await app.db.update(webhookEndpoints).set({ active: false }).where(eq(webhookEndpoints.id, endpointId));
    await expectCode(otherUi.webhooks.reenable({ id: endpointId }), 'NOT_FOUND');
    await expectCode(otherUi.webhooks.delete({ id: endpointId }), 'NOT_FOUND');
    const [row] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
    expect(row!.active).toBe(false);
    expect((await ownerUi.webhooks.reenable({ id: endpointId })).active).toBe(true);
  });

  it('notes of another account are not listed, found, searched or deleted', async () => {
    expect((await otherUi.notes.list({})).items).toEqual([]);
    expect(await otherUi.notes.search({ q: 'zebra budget' })).toEqual([]);
    await expectCode(otherUi.notes.get({ id: noteId }), 'NOT_FOUND');
    await expectCode(otherUi.notes.delete({ id: noteId }), 'NOT_FOUND');
    expect((await app.db.select().from(meetings).where(eq(meetings.id, noteId))).length).toBe(1);
    expect((await ownerUi.notes.search({ q: 'zebra budget' }))[0]).toMatchObject({ noteId, startTime: 0 });
  });

  it('without a session every account procedure answers UNAUTHORIZED', async () => {
    const anonymous = callerFor(null);
    await expectCode(anonymous.keys.list(), 'UNAUTHORIZED');
    await expectCode(anonymous.webhooks.list(), 'UNAUTHORIZED');
    await expectCode(anonymous.notes.list({}), 'UNAUTHORIZED');
    await expectCode(anonymous.account.get(), 'UNAUTHORIZED');
    await expectCode(anonymous.webhooks.reenable({ id: endpointId }), 'UNAUTHORIZED');
  });
});

describe('settings procedures', () => {
  it('sign-up creates an account without early access; a taken email (any case) gets the same answer and no second account', async () => {
    const ui = callerFor(null);
    const email = `new-${Date.now()}@example.com`;
    expect(await ui.account.signUp({ email, password: 'correct horse battery', name: 'New' })).toEqual({
      checkEmail: true,
    });
    const [row] = await app.db.select().from(accounts).where(eq(accounts.email, email));
    expect(row).toMatchObject({ email, earlyAccess: false, plan: 'free' });
    // A bcrypt hash at the accounts' cost (12 in the service; see test/accounts/ui-auth.test.ts).
    expect(bcrypt.getRounds(row!.passwordHash!)).toBe(PASSWORD_HASH_COST);
    expect(
      await ui.account.signUp({ email: email.toUpperCase(), password: 'another password here' }),
    ).toEqual({ checkEmail: true });
    expect((await app.db.select().from(accounts).where(eq(accounts.email, email.toUpperCase()))).length).toBe(
      0,
    );
    await expectCode(ui.account.signUp({ email: 'not-an-email', password: 'whatever123' }), 'BAD_REQUEST');
  });

  it('a key is shown once; the list never holds the key or its hash; revoking makes /v1 answer 401', async () => {
    const { account } = await app.createAccount();
    const ui = callerFor(account.id);
    const created = await ui.keys.create({ name: 'Laptop', form: 'A' });
    expect(created.plaintext).toMatch(/^mnk_[0-9A-Za-z]{40}$/);
    expect((await app.request('/v1/notes', { key: created.plaintext })).status).toBe(200);
    const listed = (await ui.keys.list()).find((k) => k.id === created.key.id)!;
    expect(listed).toEqual({
      id: created.key.id,
      name: 'Laptop',
      form: 'A',
      prefix: created.plaintext.slice(0, 8),
      lastFour: created.plaintext.slice(-4),
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      expiresAt: null,
      rolledTo: null,
      usage: { today: 1, thisMinute: expect.any(Number), last7Days: expect.any(Array) },
    });
    expect(JSON.stringify(await ui.keys.list())).not.toContain(created.plaintext.slice(8, 30));
    await ui.keys.revoke({ id: created.key.id });
    expect((await app.request('/v1/notes', { key: created.plaintext })).status).toBe(401);
    expect((await ui.keys.list()).map((k) => k.id)).not.toContain(created.key.id);
  });

  it("account shows plan, early access and today's API usage against the limit", async () => {
    const { account, key } = await app.createAccount({ plan: 'free' });
    for (let i = 0; i < 3; i++) await app.request('/v1/notes', { key });
    const info = await callerFor(account.id).account.get();
    expect(info).toMatchObject({
      plan: 'free',
      earlyAccess: true,
      usage: { today: 3, limit: 100 },
      emails: [],
    });
  });

  it('the settings app registers endpoints with the checks of /v1 (public https URL, events once each)', async () => {
    const { account } = await app.createAccount();
    const strict = createCaller({
      db: app.db,
      services: { ...app.services, webhooks: { ...app.services.webhooks, allowPrivateUrls: false } },
      accountId: account.id,
      clientAddress: null,
    });
    for (const url of [receiverUrl, 'https://127.0.0.1/hook', 'https://[::1]/hook']) {
      await expect(strict.webhooks.create({ url, events: ['meeting.started'], form: 'A' })).rejects.toSatisfy(
        (err: unknown) => err instanceof TRPCError && err.code === 'BAD_REQUEST' && /url/i.test(err.message),
      );
    }
    expect(await strict.webhooks.list()).toEqual([]);

    const { endpoint } = await callerFor(account.id).webhooks.create({
      url: receiverUrl,
      events: ['summary.ready', 'meeting.started', 'summary.ready'],
      form: 'A',
    });
    expect(endpoint.events).toEqual(['summary.ready', 'meeting.started']);
  });

  it('a test event and a resend reach the receiver and show in the log', async () => {
    const { account } = await app.createAccount();
    const ui = callerFor(account.id);
    const { endpoint, secret } = await ui.webhooks.create({
      url: `${receiverUrl}?t=1`,
      events: ['summary.ready'],
      form: 'B',
    });
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await ui.webhooks.sendTest({ id: endpoint.id });
    const first = await vi.waitFor(async () => {
      const { items } = await ui.webhooks.deliveries({ id: endpoint.id });
      const succeeded = items.find((i) => i.state === 'succeeded');
      if (!succeeded) throw new Error('the test delivery has not succeeded yet');
      return succeeded;
    }, DELIVERED);
    expect(first).toMatchObject({ event: 'summary.ready', attempts: 1, lastStatusCode: 200, test: true });
    const detail = await ui.webhooks.delivery({ deliveryId: first.id });
    expect(JSON.parse(detail.payload)).toMatchObject({
      event: 'summary.ready',
      data: { title: 'Test event from Meeting Notes' },
    });
    expect(detail.attemptLog[0]!.requestHeaders['X-Service-Delivery']).toBe(first.id);
    expect(detail.attemptLog[0]!.requestHeaders['webhook-id']).toBe(first.id);
    const { deliveryId } = await ui.webhooks.resend({ deliveryId: first.id });
    await vi.waitFor(async () => {
      const { items } = await ui.webhooks.deliveries({ id: endpoint.id });
      expect(items.find((i) => i.id === deliveryId)?.state, 'the resend').toBe('succeeded');
    }, DELIVERED);
    expect((await ui.webhooks.delivery({ deliveryId })).payload).toBe(detail.payload);
    expect((await ui.webhooks.delivery({ deliveryId: first.id })).resentAs).toBe(deliveryId);
    const list = await ui.webhooks.list();
    expect(list[0]).toMatchObject({
      id: endpoint.id,
      active: true,
      lastDelivery: { success: true, statusCode: 200 },
    });
    const failedOnly = await ui.webhooks.deliveries({ id: endpoint.id, state: 'failed' });
    expect(failedOnly.items).toEqual([]);
    expect(
      (await app.db.select().from(deliveries).where(eq(deliveries.endpointId, endpoint.id))).length,
    ).toBe(2);
  });
});
