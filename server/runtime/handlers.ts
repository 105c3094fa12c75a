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
    const services = createServices(env, kick);
    if (env.WORKER)
      worker = startWorker({
        getDatabase,
        services: () => services,
        intervalMs: env.WORKER_INTERVAL_MS,
        stop,
      });
    const cron = { secret: env.CRON_SECRET, openWithoutSecret: isNextDev() };
    const handlers = createAppHandlers({ getDatabase, services, cron, stop });
    // Without a process that outlives its requests (serverless), an API request's response is
    // followed by the write of what it counted in memory (the next once-a-second write, shared by
    // the requests of that second), so a function frozen after it loses nothing.
    const counts = !worker && (['v1', 'mcp', 'recorder'] as const);
    for (const name of Object.keys(handlers) as (keyof AppHandlers)[]) {
      const handle = handlers[name];
      const flushAfter = counts && (counts as readonly string[]).includes(name);
      handlers[name] = (request) => {
        if (flushAfter) {
          try {
            after(() => track(services.requests.written()));
          } catch {
            // Served outside Next (a bare Node server): the once-a-second write happens all the same.
          }
        }
        return track(handle(request));
      };
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
