import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long a process answers an API key from what it last read of it (that the key works, when
 * it expires, its account's plan, daily limit and early access) before reading it again
 * (docs/rules.md#authentication). Counted from when that read was sent, so the read's snapshot
 * is younger than the trust placed in it.
 *
 * Every change that stops a key or changes what its account may do waits this long after it has
 * committed before it returns (changesReachEveryInstance): by then no process still trusts a read
 * made before the change, so the next request on any instance sees it. A change made straight in
 * the database, past the service, reaches every instance within this time.
 */
export const KEY_TRUST_MS = 250;

/** When a read of a key was sent, by both of the process's clocks. */
export interface ReadMoment {
  monotonic: number;
  wall: number;
}

export const readMoment = (): ReadMoment => ({ monotonic: performance.now(), wall: Date.now() });

/**
 * Whether a read sent at `at` may still be trusted. Both clocks must agree: the monotonic one
 * cannot be set back, and the wall clock keeps counting while a serverless runtime has the
 * process frozen between requests (when the monotonic one may not).
 */
export function stillTrusted(at: ReadMoment): boolean {
  const monotonic = performance.now() - at.monotonic;
  const wall = Date.now() - at.wall;
  return monotonic < KEY_TRUST_MS && wall >= 0 && wall < KEY_TRUST_MS;
}

/**
 * Waits until no process trusts a read of a key made before now: called after a change to a key
 * or to its account's access has committed, before the change is reported done.
 */
export const changesReachEveryInstance = (): Promise<void> => sleep(KEY_TRUST_MS);
