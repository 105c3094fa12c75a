import { asBackground } from '../db/background-turns';
import type { Db } from '../db/client';
import { log } from '../log';
import type { Services } from '../services';
import { dispatchDueDeliveries } from '../webhooks/dispatch-batch';
import { type AttemptOutcome, deliveryFallsDueWithin } from '../webhooks/delivery-attempts';
import { pruneOldEventsHourly } from '../webhooks/prune-events';
import { sealLegacySecrets } from '../webhooks/seal-secrets';
import {
  type ClaimedJob,
  claimJobs,
  completeJob,
  failJob,
  type JobLane,
  jobFallsDueWithin,
  releaseJobs,
} from '../jobs/jobs';
import type { WorkStop } from '../jobs/work-stop';
import { withSpan } from '../telemetry/tracing';
import { runJob } from './run-job';

export interface WorkCounts {
  jobs_done: number;
  jobs_retried: number;
  jobs_failed: number;
  deliveries_succeeded: number;
  deliveries_retried: number;
  deliveries_failed: number;
}

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
 * Before this process first dispatches, plaintext signing secrets left from
 * before encryption are sealed (one query when there are none; scripts/prepare.ts does it too, but
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

/** Gives claimed jobs that never started back to the queue, now rather than when their lease runs out. */
async function releaseUnstarted(db: Db, stop: WorkStop, jobs: readonly { id: string; lease: string }[]) {
  try {
    stop.leases.released.jobs += await releaseJobs(
      db,
      jobs.map((j) => ({ id: j.id, lease: j.lease, started: false })),
    );
  } catch (err) {
    log.error('claimed jobs not released', { jobs: jobs.map((j) => j.id), err });
  }
  for (const j of jobs) stop.leases.jobs.delete(j.id);
}

/** Wakes a loop that waits for work (and, once the process stops, every such loop). */
function wakeable(stop?: WorkStop) {
  let wake: (() => void) | null = null;
  return {
    wait(ms: number): Promise<void> {
      if (stop?.signal.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          stop?.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, ms));
        stop?.signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
    },
    wake() {
      const w = wake;
      wake = null;
      w?.();
    },
  };
}

/**
 * Runs due background work (webhook attempts, embeddings, summaries) until none is due or the time
 * budget is spent (docs/rules.md#background-work). Shared by the in-process worker and the cron
 * route; any number may run at once. With waitForDue (the cron route, whose ticks are a minute
 * apart) it also waits for work that falls due within the budget, such as a 30-second retry, and
 * ends once nothing is queued to fall due before the budget ends: a platform that bills a
 * function by the second is not billed for waiting on nothing.
 *
 * Deliveries and jobs run side by side, so a webhook's first attempt never waits behind a slow
 * job (an embedding); the jobs run in two lanes side by side too (quick: summaries and the like;
 * bulk: transcript embeddings). `only` runs the deliveries, the jobs, or one lane of jobs (the
 * in-process worker runs each on its own, so one that ends early starts again when kicked rather
 * than when the longest is done). Without `only`, the deliveries side ends after the jobs side, since a job can queue
 * deliveries (summary.ready).
 *
 * With `stop`, the run ends early once the process stops: nothing more is claimed, webhook
 * attempts in flight and the job in progress finish, and what was claimed but not started is
 * released for another dispatcher (see WorkStop).
 */
export function runDueWork(db: Db, services: Services, opts: DueWorkOptions): Promise<WorkCounts> {
  // Background work: with PGlite, its statements take turns with the requests'.
  return asBackground(() => runDue(db, services, opts));
}

interface DueWorkOptions {
  budgetMs: number;
  waitForDue?: boolean;
  only?: 'deliveries' | 'jobs' | JobLane;
  stop?: WorkStop;
}

async function runDue(db: Db, services: Services, opts: DueWorkOptions): Promise<WorkCounts> {
  const stop = opts.stop;
  const going = () => Date.now() < deadline && stop?.signal.aborted !== true;
  const deadline = Date.now() + opts.budgetMs;
  const counts: WorkCounts = {
    jobs_done: 0,
    jobs_retried: 0,
    jobs_failed: 0,
    deliveries_succeeded: 0,
    deliveries_retried: 0,
    deliveries_failed: 0,
  };
  const jobsRan = wakeable(stop);
  let jobsOver = opts.only === 'deliveries';
  /** Jobs finished so far (and one more when the jobs side ends): a pass that overlapped one goes again. */
  let jobTicks = 0;
  const idle = (poll: { wait(ms: number): Promise<void> }) =>
    poll.wait(Math.min(IDLE_POLL_MS, deadline - Date.now()));

  const deliveriesSide = async () => {
    await sealLegacySecretsOnce(db, services);
    await pruneOldEventsHourly(db);
    while (going()) {
      const jobsWereOver = jobsOver;
      const ticks = jobTicks;
      const attempted = await dispatchDueDeliveries(
        db,
        { ...services.webhooks, mailer: services.mailer },
        {
          deadline,
          onOutcome: (outcome) => {
            const key = DELIVERY_COUNT[outcome];
            if (key) counts[key]++;
          },
          ...(stop && { stop }),
        },
      );
      if (attempted > 0) continue;
      if (jobsWereOver && !opts.waitForDue) return;
      if (jobTicks !== ticks) continue;
      if (jobsWereOver && !(await deliveryFallsDueWithin(db, deadline - Date.now()))) return;
      await idle(jobsRan);
    }
  };

  const runOne = async (job: ClaimedJob) => {
    try {
      const attributes = { 'job.kind': job.kind, 'job.attempt': job.attempts, 'job.wait_ms': job.waitedMs };
      await withSpan('job.run', attributes, async () => {
        await runJob(db, services, job);
        await completeJob(db, job);
      });
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
    jobTicks++;
    jobsRan.wake(); // it may have queued deliveries
  };

  // Each lane claims one job per free slot, right when the slot frees: a job claimed early would
  // wait behind the others of its batch, where a job queued meanwhile by another account could
  // have gone first (claimJobs serves accounts in turns).
  const lane = async (name: JobLane, slots: number) => {
    const slot = async () => {
      while (going()) {
        const [job] = await claimJobs(db, 1, { lane: name });
        if (job) {
          if (stop?.signal.aborted) {
            await releaseUnstarted(db, stop, [job]);
            return;
          }
          stop?.leases.jobs.set(job.id, { lease: job.lease, started: true });
          await runOne(job);
          stop?.leases.jobs.delete(job.id);
          continue;
        }
        if (!opts.waitForDue) return;
        if (!(await jobFallsDueWithin(db, deadline - Date.now(), name))) return;
        await idle(wakeable(stop));
      }
    };
    await Promise.all(Array.from({ length: slots }, slot));
  };

  const jobsSide = async () => {
    try {
      await Promise.all([
        opts.only === 'bulk' ? undefined : lane('quick', 1),
        opts.only === 'quick' ? undefined : lane('bulk', services.embedder.parallelism ?? 1),
      ]);
    } finally {
      jobsOver = true;
      jobTicks++;
      jobsRan.wake();
    }
  };

  await Promise.all([
    opts.only === undefined || opts.only === 'deliveries' ? deliveriesSide() : undefined,
    opts.only === 'deliveries' ? undefined : jobsSide(),
  ]);
  return counts;
}
