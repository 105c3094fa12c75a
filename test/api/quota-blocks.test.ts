import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { revokeAccountKey } from '../../server/accounts/api-key-management';
import { RequestCounter } from '../../server/accounts/request-counter';
import { type Queryable, queryRows } from '../../server/db/client';
import { FORMS, mapForms } from '../../server/rest/forms';
import type { RateLimitWindow } from '../../server/rate-limit/consume-rate-limit';
import { accountDayWindow } from '../../server/rate-limit/plan-limits';
import { type QuotaMark, QuotaLeases } from '../../server/rate-limit/quota-leases';
import { startTestApp, type TestApp } from '../support/test-app';

// Busy windows are counted from blocks of quota that each process reserves in the database and
// hands out in memory; usage is added up in memory and written once a second. Neither may admit a
// request past a limit, however many processes share an account, nor lose a count that is read.

let app: TestApp;
const rules = mapForms((form) => FORMS[form.name].rateLimits);

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function dayCount(accountId: string, limit: number): Promise<number> {
  const w = accountDayWindow({ id: accountId, plan: 'enterprise', dailyLimit: limit }, new Date());
  const [row] = await queryRows<{ count: number }>(
    app.db,
    sql`select count from rate_limit_counters where bucket = ${w.bucket} and window_start = ${w.start.toISOString()}`,
  );
  return Number(row?.count ?? 0);
}

describe('blocks of quota', () => {
  it('a busy key is served from blocks: Remaining still goes down by exactly one a request, and once the blocks go back the day holds exactly the requests made', async () => {
    const { account, key } = await app.createAccount({ plan: 'pro' });
    const before = app.services.requests.leases.stats.fromBlocks;
    const remaining: number[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await app.request('/v1/notes?limit=1', { key });
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual(Array.from({ length: 300 }, (_, i) => 10_000 - 1 - i));
    // Most of them wrote nothing: they came from blocks.
    expect(app.services.requests.leases.stats.fromBlocks - before).toBeGreaterThan(150);
    // Blocks not yet used are counted in the database until they go back.
    expect(await dayCount(account.id, 10_000)).toBeGreaterThanOrEqual(300);
    await app.flushCounts();
    expect(await dayCount(account.id, 10_000)).toBe(300);
    // After the give-back, Remaining goes on from where it was, and so does the count.
    for (let i = 0; i < 100; i++) {
      const res = await app.request('/v1/notes?limit=1', { key });
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
      if (i === 49) await app.flushCounts();
    }
    expect(remaining).toEqual(Array.from({ length: 400 }, (_, i) => 10_000 - 1 - i));
    await app.flushCounts();
    expect(await dayCount(account.id, 10_000)).toBe(400);
  });

  it('four processes hammering one account at the edge of its limit never admit more than it, and admit all of it once their blocks go back', async () => {
    const limit = 3000;
    const { account, key } = await app.createAccount({ plan: 'enterprise', dailyLimit: limit });
    // 400 requests left today.
    const w = accountDayWindow({ id: account.id, plan: 'enterprise', dailyLimit: limit }, new Date());
    await app.db.execute(
      sql`insert into rate_limit_counters (bucket, window_start, count) values (${w.bucket}, ${w.start.toISOString()}, ${limit - 400})`,
    );
    const processes = Array.from({ length: 4 }, () => new RequestCounter());
    let admitted = 0;
    const wave = async () => {
      const answers = await Promise.all(
        processes.flatMap((p) =>
          Array.from({ length: 25 }, () => p.authenticateAndCount(app.db, key, { rules, now: new Date() })),
        ),
      );
      const passed = answers.filter((a) => a?.limit.allowed);
      for (const a of passed) {
        expect(a!.limit.remaining).toBeGreaterThanOrEqual(0);
        expect(a!.limit.remaining).toBeLessThan(limit);
      }
      admitted += passed.length;
      expect(admitted).toBeLessThanOrEqual(400);
      return passed.length;
    };
    // Waves until one admits nothing; then every process gives back what it holds, and again:
    // until a wave right after the give-back admits nothing.
    for (let round = 0; round < 50; round++) {
      while ((await wave()) > 0);
      await Promise.all(processes.map((p) => p.flush(app.db)));
      if ((await wave()) === 0) break;
    }
    expect(admitted).toBe(400);
    expect(await dayCount(account.id, limit)).toBe(limit);
    // The blocks were really used.
    expect(processes.reduce((n, p) => n + p.leases.stats.fromBlocks, 0)).toBeGreaterThan(0);
    expect(processes.reduce((n, p) => n + p.leases.stats.blocks, 0)).toBeGreaterThan(0);
  });

  /**
   * One process's blocks on a window of 10,000, on a clock of its own; each request is counted by
   * a real statement, and what each leaves for Remaining is recorded in order.
   */
  function blocksOnOneWindow() {
    const clock = { now: 0 };
    const leases = new QuotaLeases(() => clock.now);
    const start = new Date();
    const w: RateLimitWindow = {
      bucket: `test:${randomUUID()}`,
      limit: 10_000,
      start,
      end: new Date(start.getTime() + 86_400_000),
    };
    const remaining: number[] = [];
    const countOne = async () =>
      Number(
        (
          await queryRows<{ count: number }>(
            app.db,
            sql`insert into rate_limit_counters as c (bucket, window_start, count)
                values (${w.bucket}, ${start.toISOString()}, 1)
                on conflict (bucket, window_start) do update set count = c.count + 1
                returning c.count`,
          )
        )[0]?.count,
      );
    const failed = (err: unknown) => {
      throw err;
    };
    return {
      clock,
      leases,
      remaining,
      countOne,
      /** A request counted in the database: its answer read as soon as it is in hand. */
      async countNext() {
        const mark = leases.mark;
        const count = await countOne();
        remaining.push(await leases.counted(w, count, mark));
      },
      fromBlock() {
        const take = leases.take(w);
        expect(take).not.toBeNull();
        remaining.push(take!.remaining);
      },
      /**
       * Ten requests counted one by one make the window busy enough for a block; the next request
       * waits for it, and three more are taken from it.
       */
      async aBlockPartlySpent() {
        for (let i = 0; i < 10; i++) await this.countNext();
        this.refill();
        await this.countNext();
        for (let i = 0; i < 3; i++) this.fromBlock();
      },
      /** Reserves the next block through `db` (the test's database unless told). */
      refill(db: Queryable = app.db) {
        leases.refill(db, w, failed);
      },
      counted: (count: number, mark: QuotaMark) => leases.counted(w, count, mark),
      settle: () => leases.settle(app.db, { all: false }),
      /** Each request took exactly one off Remaining. */
      expectOneEach() {
        expect(remaining).toEqual(remaining.map((_, i) => 10_000 - 1 - i));
      },
    };
  }

  /** A database connection whose statements reach the database only once `release` is called. */
  function heldBack() {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const db = {
      execute: async (query: SQL) => {
        await held;
        return app.db.execute(query);
      },
    } as unknown as Queryable;
    return { db, release };
  }

  it('a request counted while unused quota goes back, or while a block is reserved, still takes exactly one off Remaining, whichever statement the database ran first', async () => {
    const b = blocksOnOneWindow();
    // Ten requests counted one by one: the window is busy enough for a block (of five).
    for (let i = 0; i < 10; i++) await b.countNext();
    b.refill();
    await b.countNext(); // Its count may include the block or not: it waits for the block.
    b.fromBlock();
    b.fromBlock();
    // A second on, the block's last three go back. A statement sent before that counts them as
    // used; its answer is read after the give-back is written.
    b.clock.now += 1000;
    const mark = b.leases.mark;
    const count = await b.countOne();
    await b.settle();
    b.remaining.push(await b.counted(count, mark));
    // A block (of seven) given back, a second on, as a request is counted: the database may run
    // either statement first.
    for (let i = 0; i < 10; i++) await b.countNext();
    b.refill();
    await b.countNext();
    b.clock.now += 1000;
    const settling = b.settle();
    await b.countNext();
    await settling;
    // A block (of six) half spent: the next (of eight) is reserved as the rest of this one goes
    // back; the reservation's count may include the returned three or not.
    await b.aBlockPartlySpent();
    b.refill();
    b.clock.now += 1000;
    await b.settle();
    await b.countNext();
    b.fromBlock();
    expect(b.leases.stats).toMatchObject({ blocks: 4, reserved: 5 + 7 + 6 + 8, returned: 3 + 7 + 3 });
    b.expectOneEach();
  });

  it('a request the database counts before a block reserved earlier, while unused quota went back, still takes exactly one off Remaining', async () => {
    const b = blocksOnOneWindow();
    await b.aBlockPartlySpent();
    // The next block is asked for, but its statement reaches the database only after the rest of
    // this block has gone back and a later request has been counted: the block's count is not
    // read, and the request's answer waits for the block.
    const first = heldBack();
    b.refill(first.db);
    b.clock.now += 1000;
    await b.settle();
    let mark = b.leases.mark;
    let count = await b.countOne();
    first.release();
    b.remaining.push(await b.counted(count, mark));
    expect(b.leases.stats.blocks).toBe(2);
    // Again, with the request's answer read only after the block is in hand.
    for (let i = 0; i < 6; i++) b.fromBlock();
    const second = heldBack();
    b.refill(second.db);
    b.clock.now += 1000;
    await b.settle();
    mark = b.leases.mark;
    count = await b.countOne();
    second.release();
    await vi.waitFor(() => expect(b.leases.stats.blocks).toBe(3));
    b.remaining.push(await b.counted(count, mark));
    b.fromBlock();
    await b.countNext();
    b.expectOneEach();
  });

  it('windows with small limits are never served from blocks: a free account is counted request by request', async () => {
    const { account, key } = await app.createAccount({ plan: 'free' });
    const before = app.services.requests.leases.stats.fromBlocks;
    for (let i = 0; i < 20; i++) expect((await app.request('/v1/notes?limit=1', { key })).status).toBe(200);
    expect(app.services.requests.leases.stats.fromBlocks).toBe(before);
    const w = accountDayWindow({ id: account.id, plan: 'free', dailyLimit: null }, new Date());
    const [row] = await queryRows<{ count: number }>(
      app.db,
      sql`select count from rate_limit_counters where bucket = ${w.bucket} and window_start = ${w.start.toISOString()}`,
    );
    expect(Number(row?.count)).toBe(20);
  });

  it('a key revoked while its account holds a block is refused at once', async () => {
    const { account, key, keyId } = await app.createAccount({ plan: 'pro' });
    for (let i = 0; i < 60; i++) expect((await app.request('/v1/notes?limit=1', { key })).status).toBe(200);
    await revokeAccountKey(app.db, { accountId: account.id, keyId });
    expect((await app.request('/v1/notes?limit=1', { key })).status).toBe(401);
  });
});

describe('usage counted in memory', () => {
  const written = async (keyId: string) =>
    Number(
      (
        await queryRows<{ requests: number }>(
          app.db,
          sql`select requests from api_key_usage where key_id = ${keyId}`,
        )
      )[0]?.requests ?? 0,
    );

  it('is written within about a second without anyone reading it', async () => {
    const { key, keyId } = await app.createAccount();
    for (let i = 0; i < 3; i++) expect((await app.request('/v1/notes?limit=1', { key })).status).toBe(200);
    await expect.poll(() => written(keyId), { timeout: 10_000, interval: 100 }).toBe(3);
  });

  it('closing the counter writes what it holds at once and cancels the write it had armed', async () => {
    const { key, keyId } = await app.createAccount();
    const armed: Promise<void>[] = [];
    const counter = new RequestCounter({
      flushIntervalMs: 3_600_000,
      onWriteScheduled: (write) => armed.push(write),
    });
    await counter.authenticate(app.db, key, new Date());
    expect(armed).toHaveLength(1);
    await counter.close(app.db);
    expect(await written(keyId)).toBe(1);
    // The armed write is settled by the close, not an hour later (a serverless run waits for it).
    await armed[0];
    // Nothing armed is left behind: the next request arms a write of its own.
    await counter.authenticate(app.db, key, new Date());
    expect(armed).toHaveLength(2);
    await counter.close(app.db);
    expect(await written(keyId)).toBe(2);
  });

  it('only a request is handed a write to wait for: the writes that follow on while the windows are remembered are not', async () => {
    const { key } = await app.createAccount();
    const handed: Promise<void>[] = [];
    const counter = new RequestCounter({ flushIntervalMs: 20, onWriteScheduled: (w) => handed.push(w) });
    const writes = vi.spyOn(counter as unknown as { write: () => Promise<void> }, 'write');
    await counter.authenticateAndCount(app.db, key, { rules, now: new Date() });
    expect(handed).toHaveLength(1);
    await handed[0];
    // The window stays remembered for a minute, so writes go on being armed one after another;
    // none is handed on (a serverless function or a shutdown would wait for all of that minute).
    await expect
      .poll(() => writes.mock.calls.length, { timeout: 10_000, interval: 10 })
      .toBeGreaterThanOrEqual(5);
    expect(handed).toHaveLength(1);
    // The next request is handed the write then armed, which carries its usage.
    await counter.authenticateAndCount(app.db, key, { rules, now: new Date() });
    expect(handed).toHaveLength(2);
    await handed[1];
    await counter.close(app.db);
  });
});
