import type { Db } from '../db/client';
import { log } from '../log';
import { withSpan } from '../telemetry/tracing';
import type { SecretBox } from './secret-box';
import type { WorkStop } from '../jobs/work-stop';
import { AttemptNotStartedError } from './http-sender';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDeliveries,
  recordAttempts,
  releaseDeliveries,
  type SentAttempt,
  sendAttempt,
  type WebhookDeps,
} from './delivery-attempts';

/**
 * Deliveries one dispatcher has claimed and not yet sent at once (queued in the sender or in
 * flight). The sender bounds the requests in flight (WebhookSenderOptions.maxConcurrent, 16);
 * the rest wait there, their attempt time-out not yet started: even a window of endpoints that
 * all time out starts its last attempt within 128 / 16 × 10 s = 80 s of its claim, inside the
 * 120 s lease (DELIVERY_LEASE_MS). Attempts that were sent and await recording do not count: a
 * slow record does not hold up the sending.
 */
export const DISPATCH_WINDOW = 128;
/** Attempts recorded in one transaction at most. */
export const MAX_RECORD_BATCH = 256;
/** Claimed and not yet recorded at most (sent or not): bounds what waits for a slow database. */
const MAX_HELD_WINDOWS = 2;
/**
 * A finished attempt is recorded at once when nothing else is being sent; otherwise it waits for
 * others to finish, until RECORD_BATCH have or RECORD_LINGER_MS has passed: a transaction per
 * attempt is what bounded dispatch, and on PGlite one statement costs about as much as recording
 * dozens of attempts in it (docs/performance.md#webhook-dispatch-in-batches has the
 * measurements). The wait delays only the recorded state: the window's room comes from sending.
 */
export const RECORD_BATCH = 128;
export const RECORD_LINGER_MS = 20;
/**
 * While the window is not full and an attempt is in flight, how often the dispatcher looks for
 * deliveries that fell due meanwhile: a slow endpoint holds its own slot, not the others.
 */
export const DUE_POLL_MS = 50;

/**
 * The secret box a dispatch run signs with: each sealed secret is opened once per run, not once
 * per attempt (AES-GCM; a batch holds many deliveries of few endpoints). A value that does not
 * open is tried again each time, and fails each time as before.
 */
export function openOncePerRun(box: SecretBox): SecretBox {
  const opened = new Map<string, string>();
  return {
    currentKeyId: box.currentKeyId,
    seal: (plaintext) => box.seal(plaintext),
    isCurrent: (stored) => box.isCurrent(stored),
    open(stored) {
      let plaintext = opened.get(stored);
      if (plaintext === undefined) {
        plaintext = box.open(stored);
        if (opened.size >= OPENED_SECRETS_MAX) opened.clear();
        opened.set(stored, plaintext);
      }
      return plaintext;
    },
  };
}
const OPENED_SECRETS_MAX = 1024;

export interface DispatchOptions {
  /** No claim after this (Date.now() ms); what is claimed by then is still sent and recorded. */
  deadline: number;
  window?: number;
  onOutcome?: (outcome: AttemptOutcome) => void;
  /**
   * The process is stopping once its signal aborts: nothing more is claimed, attempts in flight
   * finish and are recorded, and claimed deliveries not yet sent are released. Every claimed
   * delivery is in `leases` until it is recorded or released.
   */
  stop?: WorkStop;
}

/**
 * Dispatches due deliveries until none is due (or the deadline passes), in
 * batches. Claims take as many due deliveries as the window has room for, in one statement
 * (half a window or more while deliveries are plentiful); each is sent as soon as it is claimed,
 * and its slot is free again once it was sent; finished attempts are recorded together, in one
 * statement for all that finished while the previous batch was being recorded (group commit).
 * So one endpoint that hangs until the time-out holds only its own slot, a slow record does not
 * stop the sending, and under load a statement records many attempts. Returns the attempts made.
 *
 * Batching gives up none of the per-delivery guarantees: claims use FOR UPDATE SKIP LOCKED and
 * a lease (exactly once under racing dispatchers, taken over after a crash), and recordAttempts
 * keeps the per-delivery rules (the fourth failure deactivates once, with one email).
 */
export async function dispatchDueDeliveries(
  db: Db,
  deps: WebhookDeps,
  opts: DispatchOptions,
): Promise<number> {
  const window = opts.window ?? DISPATCH_WINDOW;
  const sendDeps: WebhookDeps = { ...deps, secrets: openOncePerRun(deps.secrets) };
  const maxHeld = window * MAX_HELD_WINDOWS;
  let held = 0; // claimed and not yet recorded
  let attempted = 0;
  /** Attempts sent so far: each frees room in the window. */
  let sentCount = 0;
  /** Batches recorded (or attempts dropped) so far. */
  let recordedCount = 0;
  /** Whether the last claim took all it asked for: then deliveries are plentiful. */
  let lastClaimFull = false;
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
  const stop = opts.stop;
  const stopping = () => stop?.signal.aborted === true;
  const leases = stop?.leases;
  stop?.signal.addEventListener('abort', signal, { once: true });
  /** Claimed, never sent (the stop came while they waited for the sender): released together. */
  const unsent: ClaimedDelivery[] = [];
  let releaseQueued = false;
  const release = () => {
    releaseQueued = false;
    const batch = unsent.splice(0);
    releaseDeliveries(db, batch)
      .then((released) => {
        if (leases) leases.released.deliveries += released;
      })
      .catch((err: unknown) => {
        // The lease hands them on later.
        log.error('claimed deliveries not released', { deliveries: batch.map((d) => d.id), err });
      })
      .finally(() => {
        for (const d of batch) leases?.deliveries.delete(d.id);
        held -= batch.length;
        recordedCount++;
        signal();
      });
  };
  /** Resolves at the next recorded batch (or attempt sent, while deliveries are plentiful), or after `ms`. */
  const nextProgress = (ms?: number) =>
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
    withSpan('webhook.record', { 'webhook.attempts': batch.length }, () => recordAttempts(db, deps, batch))
      .then(
        (outcomes) => {
          for (const outcome of outcomes) opts.onOutcome?.(outcome);
          for (const s of batch) leases?.deliveries.delete(s.delivery.id);
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
        recordedCount++;
        recording = false;
        record(true);
        signal();
      });
  };

  const queueRelease = () => {
    if (releaseQueued) return;
    releaseQueued = true;
    setImmediate(release);
  };

  const dropped = (delivery: ClaimedDelivery) => {
    leases?.deliveries.delete(delivery.id);
    held--;
    attempted++;
    recordedCount++;
    opts.onOutcome?.('gone');
    signal();
  };

  try {
    while (Date.now() < opts.deadline && !stopping()) {
      const seenSent = sentCount;
      const seenRecorded = recordedCount;
      const room = Math.min(window - sending, maxHeld - held);
      // Claims come in batches (half a window or more) while deliveries are plentiful; once one
      // found fewer than it could take, any room is worth a look.
      if (room > 0 && (sending === 0 || room * 2 >= window || !lastClaimFull)) {
        const claimed = await claimDeliveries(db, room);
        lastClaimFull = claimed.length === room;
        for (const delivery of claimed) {
          leases?.deliveries.set(delivery.id, delivery.lease);
          held++;
          if (stopping()) {
            // The stop came while the claim was under way.
            unsent.push(delivery);
            queueRelease();
            continue;
          }
          sending++;
          sendAttempt(sendDeps, delivery, stop?.signal).then(
            (sent) => {
              sending--;
              finished.push(sent);
              sentCount++;
              record();
              if (lastClaimFull) signal();
            },
            (err: unknown) => {
              sending--;
              if (err instanceof AttemptNotStartedError) {
                unsent.push(delivery);
                queueRelease();
                return;
              }
              // Could not be signed (e.g. its secret cannot be opened): not attempted; the lease
              // hands it on later.
              log.error('delivery attempt not made', { delivery: delivery.id, err });
              dropped(delivery);
            },
          );
        }
      }
      if (held === 0) break; // nothing due, nothing in flight
      // While deliveries are plentiful, wait for room (an attempt sent); otherwise look again at
      // the next recorded batch, or shortly, for what fell due meanwhile (a slow attempt in flight
      // must not hold up new ones).
      if (recordedCount !== seenRecorded || (lastClaimFull && sentCount !== seenSent)) continue;
      await nextProgress(lastClaimFull ? undefined : DUE_POLL_MS);
    }
  } finally {
    while (held > 0) await nextProgress();
    stop?.signal.removeEventListener('abort', signal);
  }
  return attempted;
}
