import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { overriding } from './traced-client';

// PGlite runs each statement on the server's own thread, synchronously, and a chain of awaited
// statements resolves through promises alone: until the chain awaits something else, no request
// is read, parsed or answered. Background work chains several (a meeting's passages stored a few
// to a statement, their segment vectors, the job's end), so with PGlite a request that arrived
// meanwhile waited for the whole chain. Statements of background work therefore first let the
// event loop turn once: a request waits for at most the one background statement in progress, and
// its own statements, which never wait for a turn, run one after another as before. Measured
// in docs/performance.md#background-statements-take-turns-with-requests. PostgreSQL needs none of
// this: its statements are I/O, and the event loop turns while they run.

const background = new AsyncLocalStorage<true>();

/** Runs `fn` as background work: with PGlite its statements take turns with requests. */
export function asBackground<T>(fn: () => T): T {
  return background.run(true, fn);
}

/** Whether the caller is background work (see asBackground). */
export function inBackground(): boolean {
  return background.getStore() === true;
}

interface PgliteLike {
  query(text: string, ...rest: unknown[]): Promise<unknown>;
  transaction(fn: (tx: unknown) => Promise<unknown>): Promise<unknown>;
}

/**
 * PGlite's client, whose statements and transactions started by background work first wait for
 * a turn of the event loop. Statements inside a transaction do not: it holds the database until
 * it ends, so a turn would only make it longer.
 */
export function backgroundTakesTurns<T extends object>(client: T): T {
  const c = client as unknown as PgliteLike;
  return overriding(client, {
    query: (text: string, ...rest: unknown[]) =>
      inBackground() ? nextTurn().then(() => c.query(text, ...rest)) : c.query(text, ...rest),
    transaction: (fn: (tx: unknown) => Promise<unknown>) =>
      inBackground() ? nextTurn().then(() => c.transaction(fn)) : c.transaction(fn),
  });
}
