import { createTrpcHandler, TRPC_PREFIX } from '../api/trpc-handler';
import { AUTH_PREFIX, createAuthHandler } from '../auth/auth-handler';
import { authSettings, type AuthSettings } from '../auth/auth-options';
import type { Database } from '../db/client';
import type { Services } from '../services';
import { createRecorderHandler, RECORDER_PREFIX } from '../recorder/recorder-handler';
import { createRecorderOpenApiHandler, RECORDER_OPENAPI_PATH } from '../recorder/recorder-openapi';
import { createCronHandler } from '../worker/cron-handler';
import {
  createOpenApiDocumentHandler,
  type OpenApiDocumentSettings,
  openApiDocumentSettings,
} from '../rest/openapi-document';
import { createV1Handler } from '../rest/v1-handler';
import { createMcpHandler, MCP_PATH } from '../mcp/mcp-handler';
import { createAsyncApiDocumentHandler } from '../rest/asyncapi-document';
import type { FetchHandler } from '../http/serve-node';
import { createHealthHandler, createReadyHandler, HEALTH_PATH, READY_PATH } from '../health/health-handler';
import type { WorkStop } from '../jobs/work-stop';
import { traceRequest } from '../telemetry/tracing';

export interface AppHandlers {
  v1: FetchHandler;
  /** The MCP server for AI agents. */
  mcp: FetchHandler;
  recorder: FetchHandler;
  openapi: FetchHandler;
  /** The event catalog as AsyncAPI documents. */
  asyncapi: FetchHandler;
  /** The recorder API's OpenAPI document. */
  recorderOpenapi: FetchHandler;
  cron: FetchHandler;
  /** The settings app's tRPC procedures. */
  trpc: FetchHandler;
  /** next-auth's routes (sign-in, sign-out, session, CSRF). */
  auth: FetchHandler;
  /** The process is up. */
  health: FetchHandler;
  /** The process can serve: database, migrations, model; and the background backlog. */
  ready: FetchHandler;
}

/** Every HTTP entry point of the service, built on one database. Next's route files and the tests share these. */
export interface AppDeps {
  getDatabase(): Promise<Database>;
  services: Services;
  cron: { secret: string | undefined; openWithoutSecret: boolean; budgetMs?: number };
  /** Session secret and proxy trust of the settings app; from the environment unless given. */
  auth?: AuthSettings;
  /** The public URL and proxy trust the OpenAPI documents take their servers from. */
  openapi?: OpenApiDocumentSettings;
  /** The API's clock (key expiry, rate-limit windows); tests move it. */
  now?(): Date;
  /** The process's shutdown: the cron route and readiness answer 503 once it has begun. */
  stop?: WorkStop;
  /** Readiness: where the shipped migrations are, how long a check may take, how long its answer is kept. */
  ready?: { migrationsFolder?: string; timeoutMs?: number; cacheMs?: number };
}

/** The route each handler is traced under (as Next's app/ folder names it); /v1 and the recorder name theirs more precisely. */
const ROUTES: Record<keyof AppHandlers, string> = {
  v1: '/v1/[[...path]]',
  mcp: MCP_PATH,
  recorder: '/api/recorder/[[...path]]',
  openapi: '/api/openapi.json',
  asyncapi: '/api/asyncapi.json',
  recorderOpenapi: RECORDER_OPENAPI_PATH,
  cron: '/api/cron/dispatch',
  trpc: '/api/trpc/[trpc]',
  auth: '/api/auth/[...nextauth]',
  health: HEALTH_PATH,
  ready: READY_PATH,
};

export function createAppHandlers(deps: AppDeps): AppHandlers {
  const auth = deps.auth ?? authSettings();
  const handlers: AppHandlers = {
    v1: createV1Handler(deps),
    mcp: createMcpHandler(deps),
    recorder: createRecorderHandler(deps),
    openapi: createOpenApiDocumentHandler(deps.openapi ?? openApiDocumentSettings()),
    asyncapi: createAsyncApiDocumentHandler(),
    recorderOpenapi: createRecorderOpenApiHandler(deps.openapi ?? openApiDocumentSettings()),
    cron: createCronHandler({
      ...deps,
      cronSecret: deps.cron.secret,
      openWithoutSecret: deps.cron.openWithoutSecret,
      budgetMs: deps.cron.budgetMs,
      ...(deps.stop && { stop: deps.stop }),
    }),
    trpc: createTrpcHandler({ getDatabase: deps.getDatabase, services: deps.services, auth, now: deps.now }),
    auth: createAuthHandler({ getDatabase: deps.getDatabase, settings: auth }),
    health: createHealthHandler(),
    ready: createReadyHandler({
      getDatabase: deps.getDatabase,
      services: deps.services,
      ...(deps.stop && { stop: deps.stop }),
      ...deps.ready,
    }),
  };
  // One span per request when tracing is on; the handler itself when it is not.
  for (const name of Object.keys(handlers) as (keyof AppHandlers)[]) {
    const handle = handlers[name];
    handlers[name] = (request) => traceRequest(request, ROUTES[name], handle);
  }
  return handlers;
}

/** Which handler serves a path, as Next's app/ folder lays them out. */
export function routeFor(handlers: AppHandlers, pathname: string): FetchHandler | undefined {
  if (pathname === '/v1' || pathname.startsWith('/v1/')) return handlers.v1;
  if (pathname === MCP_PATH) return handlers.mcp;
  // The recorder's document is public, unlike the recorder API around it.
  if (pathname === RECORDER_OPENAPI_PATH) return handlers.recorderOpenapi;
  if (pathname === RECORDER_PREFIX || pathname.startsWith(`${RECORDER_PREFIX}/`)) return handlers.recorder;
  if (pathname === '/api/openapi.json') return handlers.openapi;
  if (pathname === '/api/asyncapi.json') return handlers.asyncapi;
  if (pathname === '/api/cron/dispatch') return handlers.cron;
  if (pathname === HEALTH_PATH) return handlers.health;
  if (pathname === READY_PATH) return handlers.ready;
  if (pathname.startsWith(`${TRPC_PREFIX}/`)) return handlers.trpc;
  if (pathname.startsWith(`${AUTH_PREFIX}/`)) return handlers.auth;
  return undefined;
}
