import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { asBackground, inBackground } from '../../server/db/background-turns';
import type { Db } from '../../server/db/client';
import { runDueWork } from '../../server/worker/run-due-work';
import { startTestApp, type TestApp } from '../support/test-app';

// PGlite runs statements on the server's own thread, and a chain of awaited statements resolves
// through promises alone: a request that arrives meanwhile is not even read until the chain ends,
// unless the chain's statements let the event loop turn.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

/**
 * Three statements one after another, run by `run`, and beside them a callback that wants the
 * event loop from the start, as a request that has just arrived does: the order they ran in.
 */
async function chainBesideARequest(run: (chain: () => Promise<void>) => Promise<void>): Promise<string[]> {
  const order: string[] = [];
  const request = new Promise<void>((resolve) =>
    setImmediate(() => {
      order.push('request');
      resolve();
    }),
  );
  await run(async () => {
    for (let i = 0; i < 3; i++) {
      await app.db.execute(sql`select ${i}`);
      order.push('statement');
    }
  });
  await request;
  return order;
}

it('each statement of background work first lets the event loop turn: a request waits for at most one', async () => {
  expect(await chainBesideARequest((chain) => asBackground(chain))).toEqual([
    'request',
    'statement',
    'statement',
    'statement',
  ]);
});

it("a request's own statements run one after another, without waiting for turns", async () => {
  expect(await chainBesideARequest((chain) => chain())).toEqual([
    'statement',
    'statement',
    'statement',
    'request',
  ]);
});

it('the due work (the worker, the cron route, the work after a response) is background work', async () => {
  const seen = new Set<boolean>();
  const db = new Proxy(app.db, {
    get(target, prop, receiver) {
      seen.add(inBackground());
      return Reflect.get(target, prop, receiver);
    },
  }) as Db;
  await runDueWork(db, app.services, { budgetMs: 1000 });
  expect([...seen]).toEqual([true]);
  expect(inBackground()).toBe(false);
});
