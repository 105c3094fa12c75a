import type { Db } from '../db/client';
import { log } from '../log';
import {
  type AttemptOutcome,
  claimDeliveries,
  recordAttempts,
  type SentAttempt,
  sendAttempt,
  type WebhookDeps,
} from './dispatch-deliveries';

/**
 * Deliveries one dispatcher holds at once: claimed and not yet recorded. The sender bounds the
 * requests in flight again (WebhookSenderOptions.maxConcurrent, 16); the rest of the window waits
 * there, its attempt time-out not yet started: even a window of endpoints that all time out is
 * done in 128 / 16 × 10 s = 80 s, inside the 120 s lease (DELIVERY_LEASE_MS).
 */
export const DISPATCH_WINDOW = 128;
/** Attempts recorded in one transaction at most. */
export const MAX_RECORD_BATCH = 256;
/**
 * A finished attempt is recorded at once when nothing else is being sent; otherwise it waits for
 * others to finish, until RECORD_BATCH have or RECORD_LINGER_MS has passed: a transaction per
 * attempt is what bounded dispatch (on PGlite one costs as much as recording dozens at once).
 */
export const RECORD_BATCH = 32;
export const RECORD_LINGER_MS = 5;
/**
 * While the window is not full and an attempt is in flight, how often the dispatcher looks for
 * deliveries that fell due meanwhile: a slow endpoint holds its own slot, not the others.
 */
export const DUE_POLL_MS = 50;

export interface DispatchOptions {
  /** No claim after this (Date.now() ms); what is claimed by then is still sent and recorded. */
  deadline: number;
  window?: number;
  onOutcome?: (outcome: AttemptOutcome) => void;
}

/**
 * Issue 14 item 4: dispatches due deliveries until none is due (or the deadline passes), in
 * batches. Claims take as many due deliveries as the window has room for, in one statement; each
 * is sent as soon as it is claimed; finished attempts are recorded together, one transaction for
 * all that finished while the previous one was being recorded (group commit), which frees their
 * slots for the next claim. So one endpoint that hangs until the time-out holds only its own
 * slots, and under load a transaction records many attempts. Returns the attempts made.
 *
 * Every guarantee of one-at-a-time dispatch holds: claims use FOR UPDATE SKIP LOCKED and a
 * lease (exactly once under racing dispatchers, taken over after a crash), and recordAttempts
 * keeps the per-delivery rules (the fourth failure deactivates once, with one email).
 */
export async function dispatchDueDeliveries(
  db: Db,
  deps: WebhookDeps,
  opts: DispatchOptions,
): Promise<number> {
  const window = opts.window ?? DISPATCH_WINDOW;
  let held = 0; // claimed and not yet recorded
  let attempted = 0;
  /** Batches recorded (or attempts dropped) so far: a claim that overlapped one need not wait. */
  let progress = 0;
  const finished: SentAttempt[] = [];
  let recording = false;
  let sending = 0;
  let linger: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  /** Resolves at the next recorded batch, or after `ms` when given. */
  const nextRecorded = (ms?: number) =>
    new Promise<void>((resolve) => {
      const timer = ms === undefined ? null : setTimeout(resolve, ms);
      wake = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });

  const record = (force = false) => {
    if (recording || finished.length === 0) return;
    if (!force && sending > 0 && finished.length < RECORD_BATCH) {
      linger ??= setTimeout(() => {
        linger = null;
        record(true);
      }, RECORD_LINGER_MS);
      return;
    }
    if (linger) {
      clearTimeout(linger);
      linger = null;
    }
    recording = true;
    const batch = finished.splice(0, MAX_RECORD_BATCH);
    recordAttempts(db, deps, batch)
      .then(
        (outcomes) => {
          for (const outcome of outcomes) opts.onOutcome?.(outcome);
        },
        (err: unknown) => {
          // Recording failed (e.g. the database went away): the lease hands them on later.
          log.error('delivery attempts not recorded', {
            deliveries: batch.map((s) => s.delivery.id),
            err,
          });
          for (const _ of batch) opts.onOutcome?.('gone');
        },
      )
      .finally(() => {
        held -= batch.length;
        attempted += batch.length;
        progress++;
        recording = false;
        record(true);
        signal();
      });
  };

  const dropped = () => {
    held--;
    attempted++;
    progress++;
    opts.onOutcome?.('gone');
    signal();
  };

  let lastClaimFull = false;
  try {
    while (Date.now() < opts.deadline) {
      const seen = progress;
      const room = window - held;
      // Claims come in batches (half a window or more) while deliveries are plentiful; once one
      // found fewer than it could take, any room is worth a look.
      if (room > 0 && (held === 0 || room * 2 >= window || !lastClaimFull)) {
        const claimed = await claimDeliveries(db, room);
        lastClaimFull = claimed.length === room;
        for (const delivery of claimed) {
          held++;
          sending++;
          sendAttempt(deps, delivery).then(
            (sent) => {
              sending--;
              finished.push(sent);
              record();
            },
            (err: unknown) => {
              sending--;
              // Could not be signed (e.g. its secret cannot be opened): not attempted; the lease
              // hands it on later.
              log.error('delivery attempt not made', { delivery: delivery.id, err });
              dropped();
            },
          );
        }
      }
      if (held === 0) break; // nothing due, nothing in flight
      if (progress !== seen) continue; // room was freed while claiming
      // While deliveries are plentiful, wait for room; otherwise look again shortly for what fell
      // due meanwhile (a slow attempt in flight must not hold up new ones).
      await nextRecorded(lastClaimFull ? undefined : DUE_POLL_MS);
    }
  } finally {
    while (held > 0) await nextRecorded();
  }
  return attempted;
}
