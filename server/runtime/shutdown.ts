import type { Database } from '../db/client';
import { releaseJobs } from '../jobs/jobs';
import type { HeldLeases, WorkStop } from '../jobs/work-stop';
import { log } from '../log';
import { stopTracing } from '../telemetry/tracing';
import { releaseDeliveries } from '../webhooks/delivery-attempts';
import type { Worker } from '../worker/worker';

// Graceful shutdown on SIGTERM and SIGINT, installed by the runtime itself (not by whatever
// serves HTTP: scripts/start.mjs, or Next's own server with NEXT_MANUAL_SIG_HANDLE=true), so it
// holds whichever starts the process:
// 1. no new background work: the worker stops claiming, the cron route answers 503, /api/ready
//    answers 503 so a load balancer stops sending traffic;
// 2. what is in progress finishes: webhook attempts in flight are recorded, the job running ends,
//    requests in flight are answered; claimed work not yet started is released at once;
// 3. at the deadline (SHUTDOWN_TIMEOUT_MS) whatever is still held is released (another
//    dispatcher then makes those attempts again: at-least-once), the requests' usage counted in
//    memory is written and unused rate-limit quota given back, the database is closed and the
//    process exits.

export interface ShutdownDeps {
  stop: WorkStop & { stop(): void };
  worker: Worker | null;
  /** Requests in flight and work run after a response. */
  busy: ReadonlySet<Promise<unknown>>;
  getDatabase(): Promise<Database>;
  /** Writes what the process holds in memory: API key usage, unused blocks of rate-limit quota. */
  flushCounts(database: Database): Promise<void>;
  timeoutMs: number;
  exit(code: number): void;
}

const sleep = (ms: number) => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms).unref());

async function quiet(busy: ReadonlySet<Promise<unknown>>): Promise<void> {
  while (busy.size > 0) await Promise.allSettled([...busy]);
}

/** Clears every lease still held, so another dispatcher takes the work at once. */
async function releaseHeld(database: Database, leases: HeldLeases) {
  const deliveries = [...leases.deliveries].map(([id, lease]) => ({ id, lease }));
  const jobs = [...leases.jobs].map(([id, held]) => ({ id, ...held }));
  const [releasedDeliveries, releasedJobs] = await Promise.all([
    releaseDeliveries(database.db, deliveries),
    releaseJobs(database.db, jobs),
  ]);
  leases.deliveries.clear();
  leases.jobs.clear();
  leases.released.deliveries += releasedDeliveries;
  leases.released.jobs += releasedJobs;
}

let started: Promise<void> | null = null;

/** Stops the process as described above; a second call waits for the first. */
export function shutDown(deps: ShutdownDeps, reason: string): Promise<void> {
  started ??= (async () => {
    const begun = performance.now();
    log.info('shutting down: no new background work; finishing what is in progress', {
      reason,
      timeout_ms: deps.timeoutMs,
    });
    // Should closing the database itself hang, the process still ends.
    setTimeout(() => deps.exit(1), deps.timeoutMs + 10_000).unref();
    deps.stop.stop();
    const settled = Promise.all([deps.worker?.stop(), quiet(deps.busy)]).then(() => 'settled' as const);
    const finished = (await Promise.race([settled, sleep(deps.timeoutMs)])) === 'settled';
    let code = 0;
    const leases = deps.stop.leases;
    const heldAtDeadline = { deliveries: leases.deliveries.size, jobs: leases.jobs.size };
    try {
      const database = await deps.getDatabase();
      if (leases.size > 0) await releaseHeld(database, leases);
      await deps.flushCounts(database);
      await database.close();
    } catch (err) {
      log.error('shutdown: releasing the leases or closing the database failed', { err });
      code = 1;
    }
    // Released: claimed and never started (at the stop), or still in progress at the deadline.
    log.info('shut down', {
      finished_in_time: finished,
      released_deliveries: leases.released.deliveries,
      released_jobs: leases.released.jobs,
      in_progress_at_deadline_deliveries: heldAtDeadline.deliveries,
      in_progress_at_deadline_jobs: heldAtDeadline.jobs,
      duration_ms: Math.round(performance.now() - begun),
    });
    await stopTracing().catch(() => {});
    deps.exit(code);
  })();
  return started;
}

/** SIGTERM and SIGINT shut the process down gracefully (once; a signal during it changes nothing). */
export function installShutdown(deps: ShutdownDeps): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => void shutDown(deps, signal));
  }
}
