import type { FetchHandler } from '../http/serve-node';
import type { Services } from '../services';
import type { Worker } from '../worker/worker';
import type { AppHandlers } from './app-handlers';

// What one server process runs on: the services, the in-process worker and the handlers, built
// once (./handlers.ts) and shared through globalThis, since Next loads the server's modules once
// per bundle (instrumentation, each route).
export interface Runtime {
  services: Services;
  worker: Worker | null;
  handlers: AppHandlers;
  /** Has SIGTERM and SIGINT shut the process down gracefully (./shutdown.ts). */
  installShutdown(): void;
}

export const runtimeHolder = globalThis as typeof globalThis & { __meetingNotes?: Runtime };

/**
 * A route file's handler. The server built the runtime at start (instrumentation.ts), so a route
 * only looks it up: its bundle imports nothing else of the server, which would be a second copy
 * of every module resident in the process. Only where nothing built it first
 * is ./handlers.ts loaded, on the first request.
 */
export function routeHandler(name: keyof AppHandlers): FetchHandler {
  return (request) => {
    const built = runtimeHolder.__meetingNotes;
    if (built) return built.handlers[name](request);
    return import('./handlers').then(({ appHandlers }) => appHandlers()[name](request));
  };
}
