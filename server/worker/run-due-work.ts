import type { Db } from '../db/client';
import { log } from '../log';
import type { Services } from '../services';
import { attemptDelivery, claimDeliveries, type AttemptOutcome } from '../webhooks/dispatch-deliveries';
import { sealLegacySecrets } from '../webhooks/seal-secrets';
import { claimJobs, completeJob, failJob } from '../jobs/jobs';
import { runJob } from './run-job';

export interface WorkCounts {
  jobs_done: number;
  jobs_retried: number;
  jobs_failed: number;
  deliveries_succeeded: number;
  deliveries_retried: number;
  deliveries_failed: number;
}

const JOB_BATCH = 10;
/** Attempts in flight at once in one dispatcher (the sender bounds its requests again). */
const DELIVERY_CONCURRENCY = 16;
const IDLE_POLL_MS = 1000;

const DELIVERY_COUNT: Record<AttemptOutcome, keyof WorkCounts | null> = {
  succeeded: 'deliveries_succeeded',
  retry: 'deliveries_retried',
  failed: 'deliveries_failed',
  gone: null,
};

/** The one pass of sealLegacySecrets per database this process runs (one database in production). */
const legacySecretsSealed = new WeakMap<Db, Promise<void>>();

/**
 * Issue 12 item 7: before this process first dispatches, plaintext signing secrets left from
 * before encryption are sealed (one query when there are none; scripts/start.ts does it too, but
 * a deployment may not start through it). A failure is logged and dispatch goes on: plaintext
 * values still sign correctly, and the next process tries again.
 */
function sealLegacySecretsOnce(db: Db, services: Services): Promise<void> {
  let done = legacySecretsSealed.get(db);
  if (!done) {
    done = Promise.resolve()
      .then(() => sealLegacySecrets(db, services.webhooks.secrets))
      .then(
        (count) => {
          if (count > 0) log.info('sealed plaintext webhook secrets', { count });
        },
        (err: unknown) => log.warn('could not seal plaintext webhook secrets; dispatching anyway', { err }),
      );
    legacySecretsSealed.set(db, done);
  }
  return done;
}

/**
 * Runs due background work (webhook attempts, embeddings, summaries) until none is due or the
 * time budget is spent (D20). Shared by the in-process worker and the cron route; any number
 * may run at once. With waitForDue (the cron route, whose ticks are a minute apart) it also
 * waits for work that falls due within the budget, such as a 30-second retry.
 */
export async function runDueWork(
  db: Db,
  services: Services,
  opts: { budgetMs: number; waitForDue?: boolean },
): Promise<WorkCounts> {
  const deadline = Date.now() + opts.budgetMs;
  const counts: WorkCounts = {
    jobs_done: 0,
    jobs_retried: 0,
    jobs_failed: 0,
    deliveries_succeeded: 0,
    deliveries_retried: 0,
    deliveries_failed: 0,
  };
  await sealLegacySecretsOnce(db, services);
  while (Date.now() < deadline) {
    const attempted = await attemptDueDeliveries(db, services, deadline, counts);

    const claimedJobs = await claimJobs(db, JOB_BATCH);
    for (const job of claimedJobs) {
      try {
        await runJob(db, services, job);
        await completeJob(db, job);
        counts.jobs_done++;
      } catch (err) {
        const outcome = await failJob(db, job, err);
        counts[outcome === 'failed' ? 'jobs_failed' : 'jobs_retried']++;
        log.warn('background job failed', {
          job: job.id,
          kind: job.kind,
          meeting: job.meetingId,
          attempt: job.attempts,
          outcome,
          err,
        });
      }
    }

    if (attempted === 0 && claimedJobs.length === 0) {
      if (!opts.waitForDue) break;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(IDLE_POLL_MS, Math.max(0, deadline - Date.now()))),
      );
    }
  }
  return counts;
}

/**
 * Attempts due deliveries with up to DELIVERY_CONCURRENCY in flight. Each lane claims its next
 * delivery as soon as its last one is done, so one endpoint that hangs until the time-out holds
 * up one lane, not a whole batch.
 */
async function attemptDueDeliveries(
  db: Db,
  services: Services,
  deadline: number,
  counts: WorkCounts,
): Promise<number> {
  let attempted = 0;
  const lane = async () => {
    while (Date.now() < deadline) {
      const [delivery] = await claimDeliveries(db, 1);
      if (!delivery) return;
      const outcome = await attemptDelivery(
        db,
        { ...services.webhooks, mailer: services.mailer },
        delivery,
      ).catch((err: unknown) => {
        // Recording failed (e.g. the database went away): the lease hands it on later.
        log.error('delivery attempt not recorded', { delivery: delivery.id, err });
        return 'gone' as const;
      });
      attempted++;
      const key = DELIVERY_COUNT[outcome];
      if (key) counts[key]++;
    }
  };
  await Promise.all(Array.from({ length: DELIVERY_CONCURRENCY }, lane));
  return attempted;
}
