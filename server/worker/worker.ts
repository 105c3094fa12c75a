import type { Database } from '../db/client';
import { log } from '../log';
import type { Services } from '../services';
import { runDueWork } from './run-due-work';

export interface Worker {
  /** Looks for due work now (after a commit that queued some), not at the next tick. */
  kick(): void;
  /** Stops ticking and waits for the run in progress. */
  stop(): Promise<void>;
}

/** The in-process worker of `npm start` (D20): runs due work every intervalMs, and when kicked. */
export function startWorker(opts: {
  getDatabase(): Promise<Database>;
  services: () => Services;
  intervalMs: number;
  budgetMs?: number;
}): Worker {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const { db } = await opts.getDatabase();
          await runDueWork(db, opts.services(), { budgetMs: opts.budgetMs ?? 30_000 });
        } while (again && !stopped);
      } catch (err) {
        log.error('worker run failed', { err });
      } finally {
        running = null;
      }
    })();
  };

  const timer = setInterval(run, opts.intervalMs);
  timer.unref();
  return {
    kick: () => setImmediate(run),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
