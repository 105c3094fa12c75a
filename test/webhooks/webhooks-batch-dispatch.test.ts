import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accounts, deliveries, deliveryAttempts, emails, webhookEndpoints } from '../../server/db/schema';
import { parseEnv } from '../../server/env';
import { createServices, type Services } from '../../server/services';
import { dispatchDueDeliveries } from '../../server/webhooks/dispatch-batch';
import {
  claimDeliveries,
  recordAttempts,
  sendAttempt,
  type WebhookDeps,
} from '../../server/webhooks/delivery-attempts';
import { runDueWork } from '../../server/worker/run-due-work';
import { insertDueDeliveries } from '../support/due-deliveries';
import { startTestApp, type TestApp } from '../support/test-app';
import { Receiver } from '../support/webhook-receiver';

// Webhook dispatch in batches (server/webhooks/dispatch-batch.ts): many due deliveries claimed at
// once, sent concurrently, their attempts and state changes recorded in one transaction per batch,
// with every delivery guarantee kept (docs/rules.md#delivery-retries-and-deactivation). Runs on
// PGlite and, with TEST_DATABASE_URL, on PostgreSQL. Receivers run on 127.0.0.1; no timing
// assertions: "while" below means an observed state (a request held open by the test), not a
// duration.

const ENV = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '1,2,1' };

let receiver: Receiver;
let app: TestApp;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  app = await startTestApp({ env: ENV });
});

afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const depsOf = (s: Services): WebhookDeps => ({ ...s.webhooks, mailer: s.mailer });

async function createEndpoint(key: string, url: string) {
  const res = await app.request('/v1/webhooks', {
    method: 'POST',
    key,
    json: { url, events: ['meeting.started'] },
  });
  if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${res.text}`);
  return res.json as { id: string };
}

const insertDue = (
  accountId: string,
  endpointId: string,
  n: number,
  opts?: { attemptsMade?: number; dueAt?: Date },
) => insertDueDeliveries(app.db, accountId, endpointId, n, opts);

function perDelivery(paths: string[]): Map<string, number> {
  const seen = new Map<string, number>();
  for (const p of paths)
    for (const r of receiver.at(p)) {
      const id = String(r.headers['x-service-delivery']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
  return seen;
}

async function attemptsPerDelivery(ids: string[]): Promise<Map<string, number>> {
  const rows = await app.db
    .select({ id: deliveryAttempts.deliveryId, n: count() })
    .from(deliveryAttempts)
    .where(inArray(deliveryAttempts.deliveryId, ids))
    .groupBy(deliveryAttempts.deliveryId);
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

describe('batches under racing dispatchers', () => {
  it('four dispatchers with their own senders race over 900 due deliveries of three endpoints: each is sent and recorded exactly once, and attempts are recorded many to a transaction', async () => {
    const { key, account } = await app.createAccount();
    const targets = [receiver.path('batch-a'), receiver.path('batch-b'), receiver.path('batch-c')];
    const ids: string[] = [];
    for (const t of targets) {
      const endpoint = await createEndpoint(key, t.url);
      ids.push(...(await insertDue(account.id, endpoint.id, 300)));
    }
    // Separate instances: each its own services and sender, as several processes would have.
    const dispatchers = [app.services, ...Array.from({ length: 3 }, () => createServices(parseEnv(ENV)))];
    const runs = await Promise.all(dispatchers.map((s) => runDueWork(app.db, s, { budgetMs: 60_000 })));
    await Promise.all(dispatchers.slice(1).map((s) => s.webhooks.sender.close()));

    expect(runs.reduce((n, r) => n + r.deliveries_succeeded, 0)).toBe(900);
    const seen = perDelivery(targets.map((t) => t.path));
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    const attempts = await attemptsPerDelivery(ids);
    expect(attempts.size).toBe(900);
    expect([...attempts.values()].every((n) => n === 1)).toBe(true);
    const rows = await app.db.select().from(deliveries).where(inArray(deliveries.id, ids));
    expect(
      rows.every((d) => d.status === 'succeeded' && d.attemptsMade === 1 && d.lockedUntil === null),
    ).toBe(true);
    // Batches: the attempts were recorded by far fewer transactions than attempts (the rows one
    // transaction wrote share its id, xmin).
    const [recorders] = await app.db
      .select({ n: sql<number>`count(distinct ${deliveryAttempts}.xmin::text)` })
      .from(deliveryAttempts)
      .where(inArray(deliveryAttempts.deliveryId, ids));
    expect(Number(recorders?.n)).toBeGreaterThan(0);
    expect(Number(recorders?.n)).toBeLessThan(900);
  });
});

describe('a crashed dispatcher', () => {
  it('a batch claimed by a dispatcher that died is left alone while its lease holds, then taken over by racing dispatchers and sent exactly once', async () => {
    const { key, account } = await app.createAccount();
    const target = receiver.path('batch-crashed');
    const endpoint = await createEndpoint(key, target.url);
    const ids = await insertDue(account.id, endpoint.id, 40);

    const claimed = await claimDeliveries(app.db, 100); // claims the batch, then dies
    expect(claimed.map((c) => c.id).sort()).toEqual([...ids].sort());
    const during = await dispatchDueDeliveries(app.db, depsOf(app.services), {
      deadline: Date.now() + 5_000,
    });
    expect(during).toBe(0);
    expect(receiver.at(target.path)).toEqual([]);

    await app.db
      .update(deliveries)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(inArray(deliveries.id, ids));
    const after = await Promise.all([
      runDueWork(app.db, app.services, { budgetMs: 30_000 }),
      runDueWork(app.db, app.services, { budgetMs: 30_000 }),
    ]);
    expect(after[0].deliveries_succeeded + after[1].deliveries_succeeded).toBe(40);
    const seen = perDelivery([target.path]);
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect([...(await attemptsPerDelivery(ids)).values()]).toEqual(Array(40).fill(1));
  });

  it('a dispatcher that sent a batch and died before recording it: the deliveries are sent again after the lease (at-least-once), recorded once; its late record changes nothing', async () => {
    const { key, account } = await app.createAccount();
    const target = receiver.path('batch-late');
    const endpoint = await createEndpoint(key, target.url);
    const ids = await insertDue(account.id, endpoint.id, 10);

    const claimed = await claimDeliveries(app.db, 100);
    const sent = await Promise.all(claimed.map((d) => sendAttempt(depsOf(app.services), d)));
    expect(receiver.at(target.path)).toHaveLength(10);
    await app.db
      .update(deliveries)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(inArray(deliveries.id, ids));
    expect((await runDueWork(app.db, app.services, { budgetMs: 30_000 })).deliveries_succeeded).toBe(10);

    // The first dispatcher comes back and records what it sent: its attempts are already recorded.
    expect(await recordAttempts(app.db, depsOf(app.services), sent)).toEqual(Array(10).fill('gone'));
    expect(receiver.at(target.path)).toHaveLength(20);
    expect([...perDelivery([target.path]).values()].every((n) => n === 2)).toBe(true);
    expect([...(await attemptsPerDelivery(ids)).values()]).toEqual(Array(10).fill(1));
    const rows = await app.db.select().from(deliveries).where(inArray(deliveries.id, ids));
    expect(rows.every((d) => d.status === 'succeeded' && d.attemptsMade === 1)).toBe(true);
  });
});

describe('the fourth failure in a batch', () => {
  async function failingEndpoint() {
    const { key, account } = await app.createAccount();
    const target = receiver.path('batch-dead', () => ({ status: 500 }));
    const ok = receiver.path('batch-alive');
    const endpoint = await createEndpoint(key, target.url);
    const other = await createEndpoint(key, ok.url);
    return { account, target, ok, endpoint, other };
  }

  async function emailsOf(accountId: string) {
    return app.db.select().from(emails).where(eq(emails.accountId, accountId));
  }

  it('five deliveries of one endpoint failing for the fourth time, recorded in one batch, fail; the endpoint is deactivated once, its owner emailed once, its later delivery cancelled; another endpoint in the batch is unaffected', async () => {
    const { account, target, ok, endpoint, other } = await failingEndpoint();
    const dying = await insertDue(account.id, endpoint.id, 5, { attemptsMade: 3 });
    const [later] = await insertDue(account.id, endpoint.id, 1, {
      attemptsMade: 1,
      dueAt: new Date(Date.now() + 3_600_000),
    });
    const fine = await insertDue(account.id, other.id, 3);

    const claimed = await claimDeliveries(app.db, 100);
    expect(claimed).toHaveLength(8);
    const sent = await Promise.all(claimed.map((d) => sendAttempt(depsOf(app.services), d)));
    const outcomes = await recordAttempts(app.db, depsOf(app.services), sent);
    expect(outcomes.filter((o) => o === 'failed')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'succeeded')).toHaveLength(3);

    const [row] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ active: false });
    expect(dying).toContain(row!.deactivatedByDeliveryId);
    const mails = await emailsOf(account.id);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain(target.url);

    const rows = await app.db
      .select()
      .from(deliveries)
      .where(inArray(deliveries.id, [...dying, later!, ...fine]));
    const byId = new Map(rows.map((d) => [d.id, d]));
    for (const id of dying) expect(byId.get(id)).toMatchObject({ status: 'failed', attemptsMade: 4 });
    expect(byId.get(later!)).toMatchObject({ status: 'cancelled', cancelledReason: 'endpoint_deactivated' });
    for (const id of fine) expect(byId.get(id)).toMatchObject({ status: 'succeeded', attemptsMade: 1 });
    const [otherRow] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, other.id));
    expect(otherRow!.active).toBe(true);
    expect(receiver.at(target.path)).toHaveLength(5);
    expect(receiver.at(ok.path)).toHaveLength(3);

    // Settled: nothing more is attempted, no second email.
    await app.db
      .update(deliveries)
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(deliveries.endpointId, endpoint.id));
    expect((await runDueWork(app.db, app.services, { budgetMs: 10_000 })).deliveries_failed).toBe(0);
    expect(receiver.at(target.path)).toHaveLength(5);
    expect(await emailsOf(account.id)).toHaveLength(1);
  });

  it('the same through racing dispatchers, however the attempts fall into batches: one deactivation, one email, each attempt recorded once, nothing left pending', async () => {
    const { account, target, endpoint } = await failingEndpoint();
    const dying = await insertDue(account.id, endpoint.id, 12, { attemptsMade: 3 });
    const runs = await Promise.all(
      Array.from({ length: 3 }, () => runDueWork(app.db, app.services, { budgetMs: 30_000 })),
    );
    expect(runs.reduce((n, r) => n + r.deliveries_failed, 0)).toBeGreaterThanOrEqual(1);
    expect(runs.reduce((n, r) => n + r.deliveries_succeeded + r.deliveries_retried, 0)).toBe(0);

    const [row] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row!.active).toBe(false);
    expect(dying).toContain(row!.deactivatedByDeliveryId);
    expect(await emailsOf(account.id)).toHaveLength(1);
    // Each was sent once (claimed once) and its fourth attempt recorded once; one recorded after
    // the deactivation stays cancelled rather than failed.
    expect([...perDelivery([target.path]).values()]).toEqual(Array(12).fill(1));
    const attempts = await attemptsPerDelivery(dying);
    expect([...attempts.values()]).toEqual(Array(12).fill(1));
    const rows = await app.db.select().from(deliveries).where(inArray(deliveries.id, dying));
    expect(rows.every((d) => d.status === 'failed' || d.status === 'cancelled')).toBe(true);
    expect(rows.find((d) => d.id === row!.deactivatedByDeliveryId)).toMatchObject({
      status: 'failed',
      attemptsMade: 4,
    });
  });
});

describe('the owner has not verified the address', () => {
  it("an unverified owner's endpoint is still deactivated after the fourth failure, but no email goes to the unverified address; once verified, the next deactivation is emailed", async () => {
    const { key, account } = await app.createAccount();
    const target = receiver.path('unverified-dead', () => ({ status: 500 }));
    const first = await createEndpoint(key, target.url);
    await app.db.update(accounts).set({ emailVerifiedAt: null }).where(eq(accounts.id, account.id));
    await insertDue(account.id, first.id, 1, { attemptsMade: 3 });
    await runDueWork(app.db, app.services, { budgetMs: 10_000 });
    const [row] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, first.id));
    expect(row!.active).toBe(false);
    expect(await app.db.select().from(emails).where(eq(emails.accountId, account.id))).toHaveLength(0);

    await app.db.update(accounts).set({ emailVerifiedAt: new Date() }).where(eq(accounts.id, account.id));
    const second = await createEndpoint(key, receiver.path('verified-dead', () => ({ status: 500 })).url);
    await insertDue(account.id, second.id, 1, { attemptsMade: 3 });
    await runDueWork(app.db, app.services, { budgetMs: 10_000 });
    const mails = await app.db.select().from(emails).where(eq(emails.accountId, account.id));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('verified-dead');
  });
});

describe('lanes', () => {
  it("an endpoint that does not answer holds only its own attempt: the other endpoints' deliveries of the same batch are sent and recorded while it hangs", async () => {
    // A receiver that holds every request until the test lets go.
    const held: http.ServerResponse[] = [];
    const slow = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => held.push(res));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const { key, account } = await app.createAccount();
      const port = (slow.address() as AddressInfo).port;
      const hanging = await createEndpoint(key, `http://127.0.0.1:${port}/hang`);
      const target = receiver.path('batch-lane');
      const fast = await createEndpoint(key, target.url);
      const [stuck] = await insertDue(account.id, hanging.id, 1);
      const ids = await insertDue(account.id, fast.id, 50);

      const run = runDueWork(app.db, app.services, { budgetMs: 60_000 });
      await vi.waitFor(
        async () => {
          const rows = await app.db.select().from(deliveries).where(inArray(deliveries.id, ids));
          expect(
            rows.filter((d) => d.status !== 'succeeded'),
            'the other deliveries were not recorded while one hung',
          ).toEqual([]);
        },
        { timeout: 30_000, interval: 50 },
      );
      // Still hanging, and not recorded.
      expect(held).toHaveLength(1);
      const [stuckRow] = await app.db.select().from(deliveries).where(eq(deliveries.id, stuck!));
      expect(stuckRow).toMatchObject({ status: 'pending', attemptsMade: 0 });

      for (const res of held) res.writeHead(200).end('ok');
      const counts = await run;
      expect(counts.deliveries_succeeded).toBe(51);
      const [done] = await app.db.select().from(deliveries).where(eq(deliveries.id, stuck!));
      expect(done).toMatchObject({ status: 'succeeded', attemptsMade: 1 });
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it("an endpoint answering with a NUL character does not keep its batch from being recorded: its attempts are logged with U+FFFD in its place, the batch's other deliveries with them", async () => {
    const nul = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('before\0after'));
    });
    await new Promise<void>((resolve) => nul.listen(0, '127.0.0.1', resolve));
    try {
      const { key, account } = await app.createAccount();
      const odd = await createEndpoint(key, `http://127.0.0.1:${(nul.address() as AddressInfo).port}/nul`);
      const target = receiver.path('batch-beside-nul');
      const plain = await createEndpoint(key, target.url);
      const oddIds = await insertDue(account.id, odd.id, 3);
      const plainIds = await insertDue(account.id, plain.id, 5);

      const counts = await runDueWork(app.db, app.services, { budgetMs: 60_000 });
      expect(counts.deliveries_succeeded).toBe(8);
      const rows = await app.db
        .select()
        .from(deliveries)
        .where(inArray(deliveries.id, [...oddIds, ...plainIds]));
      expect(rows.map((d) => d.status)).toEqual(Array(8).fill('succeeded'));
      const logged = await app.db
        .select({ body: deliveryAttempts.responseBody })
        .from(deliveryAttempts)
        .where(inArray(deliveryAttempts.deliveryId, oddIds));
      expect(logged.map((a) => a.body)).toEqual(Array(3).fill('before\uFFFDafter'));
    } finally {
      nul.closeAllConnections();
      await new Promise((resolve) => nul.close(resolve));
    }
  });
});
