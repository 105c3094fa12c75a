import type { Database } from '../db/client';
import type { WorkStop } from '../jobs/work-stop';
import { log } from '../log';
import { outsideTrace } from '../telemetry/tracing';
import type { Services } from '../services';
import type { JobLane } from '../jobs/jobs';
import { runDueWork } from './run-due-work';

export interface Worker {
  /** Looks for due work now (after a commit that queued some), not at the next tick. */
  kick(): void;
  /** Stops ticking and waits for the run in progress. */
  stop(): Promise<void>;
}

/**
 * The in-process worker of `npm start`: runs due work every intervalMs, and when kicked.
 * Deliveries and the two lanes of jobs run as independent loops, so a webhook's first attempt
 * goes out, and a summary is made, while a transcript's embedding is still running rather than
 * after it.
 */
export function startWorker(opts: {
  getDatabase(): Promise<Database>;
  services: () => Services;
  intervalMs: number;
  budgetMs?: number;
  /** The process is stopping: the run in progress winds down (see runDueWork) and no other starts. */
  stop?: WorkStop;
}): Worker {
  let stopped = false;

  const runner = (only: 'deliveries' | JobLane) => {
    let running: Promise<void> | null = null;
    let again = false;
    return {
      run() {
        if (stopped || opts.stop?.signal.aborted) return;
        if (running) {
          again = true;
          return;
        }
        running = outsideTrace(async () => {
          try {
            do {
              again = false;
              const { db } = await opts.getDatabase();
              await runDueWork(db, opts.services(), {
                budgetMs: opts.budgetMs ?? 30_000,
                only,
                ...(opts.stop && { stop: opts.stop }),
              });
            } while (again && !stopped && !opts.stop?.signal.aborted);
          } catch (err) {
            log.error('worker run failed', { err, work: only });
          } finally {
            running = null;
          }
        });
      },
      settled: () => running,
    };
  };
  const runners = [runner('deliveries'), runner('quick'), runner('bulk')];
  const run = () => {
    for (const r of runners) r.run();
  };

  const timer = setInterval(run, opts.intervalMs);
  timer.unref();
  return {
    kick: () => setImmediate(run),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(runners.map((r) => r.settled()));
    },
  };
}
