import type { Database } from '../db/client';
import type { Services } from '../services';
import { createRecorderHandler, RECORDER_PREFIX } from '../recorder/recorder-handler';
import { createCronHandler } from '../jobs/cron-handler';
import { createOpenApiDocumentHandler } from '../rest/openapi-document';
import { createV1Handler } from '../rest/v1-handler';
import type { FetchHandler } from './serve-node';

export interface AppHandlers {
  v1: FetchHandler;
  recorder: FetchHandler;
  openapi: FetchHandler;
  cron: FetchHandler;
}

/** Every HTTP entry point of the service, built on one database. Next's route files and the tests share these. */
export interface AppDeps {
  getDatabase(): Promise<Database>;
  services: Services;
  cron: { secret: string | undefined; openWithoutSecret: boolean; budgetMs?: number };
}

export function createAppHandlers(deps: AppDeps): AppHandlers {
  return {
    v1: createV1Handler(deps),
    recorder: createRecorderHandler(deps),
    openapi: createOpenApiDocumentHandler(),
    cron: createCronHandler({ ...deps, cronSecret: deps.cron.secret, openWithoutSecret: deps.cron.openWithoutSecret, budgetMs: deps.cron.budgetMs }),
  };
}

/** Which handler serves a path, as Next's app/ folder lays them out. */
export function routeFor(handlers: AppHandlers, pathname: string): FetchHandler | undefined {
  if (pathname === '/v1' || pathname.startsWith('/v1/')) return handlers.v1;
  if (pathname.startsWith(`${RECORDER_PREFIX}/`)) return handlers.recorder;
  if (pathname === '/api/openapi.json') return handlers.openapi;
  if (pathname === '/api/cron/dispatch') return handlers.cron;
  return undefined;
}
