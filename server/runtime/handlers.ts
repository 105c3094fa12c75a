import { after } from 'next/server';
import { getDatabase } from '../db';
import { getEnv, isNextDev } from '../env';
import { createAppHandlers, type AppHandlers } from './app-handlers';
import { runDueWork } from '../worker/run-due-work';
import { startWorker, type Worker } from '../worker/worker';
import { log } from '../log';
import { createServices, type Services } from '../services';
import { runtimeHolder } from './route-handler';

/** Budget of the work run after a response when no worker runs (serverless). */
const AFTER_RESPONSE_BUDGET_MS = 10_000;

function runtime() {
  if (!runtimeHolder.__meetingNotes) {
    const env = getEnv();
    let worker: Worker | null = null;
    // D20: the first webhook attempt goes out right after the event: the worker is kicked, or,
    // without one (WORKER=off, serverless), the work runs after the response via next's after().
    const kick = () => {
      if (worker) return worker.kick();
      after(async () => {
        try {
          await runDueWork((await getDatabase()).db, services, { budgetMs: AFTER_RESPONSE_BUDGET_MS });
        } catch (err) {
          log.error('work after response failed', { err });
        }
      });
    };
    const services = createServices(env, kick);
    if (env.WORKER)
      worker = startWorker({ getDatabase, services: () => services, intervalMs: env.WORKER_INTERVAL_MS });
    const cron = { secret: env.CRON_SECRET, openWithoutSecret: isNextDev() };
    runtimeHolder.__meetingNotes = {
      services,
      worker,
      handlers: createAppHandlers({ getDatabase, services, cron }),
    };
  }
  return runtimeHolder.__meetingNotes;
}

export const appHandlers = (): AppHandlers => runtime().handlers;
export const appServices = (): Services => runtime().services;
/** Starts the worker with the server (instrumentation), not at the first request. */
export const startRuntime = (): void => void runtime();
