import { after } from 'next/server';
import { getDatabase } from '../db';
import type { Database } from '../db/client';
import { getEnv, isNextDev } from '../env';
import { createWorkStop } from '../jobs/work-stop';
import { createAppHandlers, type AppHandlers } from './app-handlers';
import { runDueWork } from '../worker/run-due-work';
import { startWorker, type Worker } from '../worker/worker';
import { log } from '../log';
import { outsideTrace } from '../telemetry/tracing';
import { createServices, type Services } from '../services';
import { runtimeHolder, type Runtime } from './route-handler';
import { installShutdown } from './shutdown';

/** Budget of the work run after a response when no worker runs (serverless). */
const AFTER_RESPONSE_BUDGET_MS = 10_000;

function runtime(): Runtime {
  if (!runtimeHolder.__meetingNotes) {
    const env = getEnv();
    let worker: Worker | null = null;
    const stop = createWorkStop();
    // What shutdown waits for besides the worker: requests in flight, work after a response.
    const busy = new Set<Promise<unknown>>();
    const track = <T>(work: Promise<T>): Promise<T> => {
      busy.add(work);
      work.then(
        () => busy.delete(work),
        () => busy.delete(work),
      );
      return work;
    };
    // The first webhook attempt goes out right after the event: the worker is kicked, or,
    // without one (WORKER=off, serverless), the work runs after the response via next's after().
    const kick = () => {
      if (worker) return worker.kick();
      if (stop.signal.aborted) return;
      after(() =>
        track(
          outsideTrace(async () => {
            try {
              await runDueWork((await getDatabase()).db, services, {
                budgetMs: AFTER_RESPONSE_BUDGET_MS,
                stop,
              });
            } catch (err) {
              log.error('work after response failed', { err });
            }
          }),
        ),
      );
    };
    // Without a process that outlives its requests (serverless), the request that arms the
    // once-a-second write of the usage counted in memory keeps the function up until it is done.
    const services = createServices(env, kick, {
      ...(!env.WORKER && {
        onCountsWriteScheduled: (written: Promise<void>) => {
          try {
            after(() => track(written));
          } catch {
            // Served outside Next (a bare Node server): the write happens all the same.
          }
        },
      }),
    });
    if (env.WORKER)
      worker = startWorker({
        getDatabase,
        services: () => services,
        intervalMs: env.WORKER_INTERVAL_MS,
        stop,
      });
    const cron = { secret: env.CRON_SECRET, openWithoutSecret: isNextDev() };
    const handlers = createAppHandlers({ getDatabase, services, cron, stop });
    for (const name of Object.keys(handlers) as (keyof AppHandlers)[]) {
      const handle = handlers[name];
      handlers[name] = (request) => track(handle(request));
    }
    const shutdown = {
      stop,
      worker,
      busy,
      getDatabase,
      flushCounts: (database: Database) => services.requests.flush(database.db),
      timeoutMs: env.SHUTDOWN_TIMEOUT_MS,
      exit: (code: number) => process.exit(code),
    };
    runtimeHolder.__meetingNotes = {
      services,
      worker,
      handlers,
      installShutdown: () => installShutdown(shutdown),
    };
  }
  return runtimeHolder.__meetingNotes;
}

export const appHandlers = (): AppHandlers => runtime().handlers;
export const appServices = (): Services => runtime().services;
/**
 * Starts the worker with the server (instrumentation), not at the first request, and has
 * SIGTERM and SIGINT shut it down gracefully (./shutdown.ts).
 */
export const startRuntime = (): void => runtime().installShutdown();
