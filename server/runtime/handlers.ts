import { getDatabase } from '../db';
import { getEnv, isNextDev } from '../env';
import { createAppHandlers, type AppHandlers } from '../http/app-handlers';
import { startWorker, type Worker } from '../jobs/worker';
import { createServices, type Services } from '../services';

// What one server process runs on, built once and shared through globalThis (Next may load
// this module once per route bundle): the services, the in-process worker, the handlers.
const holder = globalThis as typeof globalThis & {
  __meetingNotes?: { services: Services; worker: Worker | null; handlers: AppHandlers };
};

function runtime() {
  if (!holder.__meetingNotes) {
    const env = getEnv();
    let worker: Worker | null = null;
    const services = createServices(env, () => worker?.kick());
    if (env.WORKER) worker = startWorker({ getDatabase, services: () => services, intervalMs: env.WORKER_INTERVAL_MS });
    const cron = { secret: env.CRON_SECRET, openWithoutSecret: isNextDev() };
    holder.__meetingNotes = { services, worker, handlers: createAppHandlers({ getDatabase, services, cron }) };
  }
  return holder.__meetingNotes;
}

export const appHandlers = (): AppHandlers => runtime().handlers;
export const appServices = (): Services => runtime().services;
/** Starts the worker with the server (instrumentation), not at the first request. */
export const startRuntime = (): void => void runtime();
