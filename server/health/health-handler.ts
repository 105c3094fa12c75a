import type { Database } from '../db/client';
import { MIGRATIONS_FOLDER } from '../db/client';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { WorkStop } from '../jobs/work-stop';
import { log } from '../log';
import { checkReadiness, type Readiness } from './readiness';

// GET /api/health: the process is up (touches nothing else). GET /api/ready: it can serve
// (database, migrations, model) and what background work waits. Both unauthenticated and never
// stored by a cache. Probes may call /api/ready as often as they like: an answer is reused for
// READY_CACHE_MS, calls meanwhile share the check under way, and a check is one SQL statement.

export const HEALTH_PATH = '/api/health';
export const READY_PATH = '/api/ready';

const HEADERS = { 'Cache-Control': 'no-store' } as const;
/** How long the database may take to answer a readiness check. */
export const READY_TIMEOUT_MS = 2000;
/**
 * How long a readiness answer is reused: without it, a probe called without pause runs a
 * statement per call and slows the API beside it
 * (docs/performance.md#readiness-answers-reused-for-250-ms has the figures).
 */
export const READY_CACHE_MS = 250;

export interface HealthDeps {
  getDatabase(): Promise<Database>;
  services: { embedder: EmbeddingProvider };
  stop?: WorkStop;
  migrationsFolder?: string;
  timeoutMs?: number;
  /** A check's answer is reused for this long (READY_CACHE_MS); calls made meanwhile share the check under way. */
  cacheMs?: number;
}

function methodNotAllowed(): Response {
  return Response.json(
    { error: 'Method not allowed' },
    { status: 405, headers: { ...HEADERS, Allow: 'GET, HEAD' } },
  );
}

const readOnly = (request: Request) => request.method === 'GET' || request.method === 'HEAD';

export function createHealthHandler() {
  return async function handleHealth(request: Request): Promise<Response> {
    if (!readOnly(request)) return methodNotAllowed();
    return Response.json({ status: 'ok', checks: { process: { ok: true } } }, { headers: HEADERS });
  };
}

export function createReadyHandler(deps: HealthDeps) {
  let running: Promise<Readiness> | null = null;
  let last: { at: number; readiness: Readiness } | null = null;
  let wasReady: boolean | null = null;
  const waiting = { query: null as Promise<unknown> | null };

  const check = (): Promise<Readiness> => {
    const cacheMs = deps.cacheMs ?? READY_CACHE_MS;
    if (last && cacheMs > 0 && performance.now() - last.at < cacheMs) return Promise.resolve(last.readiness);
    running ??= checkReadiness({
      getDatabase: deps.getDatabase,
      embedder: deps.services.embedder,
      migrationsFolder: deps.migrationsFolder ?? MIGRATIONS_FOLDER,
      timeoutMs: deps.timeoutMs ?? READY_TIMEOUT_MS,
      waiting,
    })
      .then((readiness) => {
        last = { at: performance.now(), readiness };
        // Said once per change, not at every probe.
        if (wasReady !== readiness.ready) {
          if (readiness.ready) log.info('ready', { checks: readiness.checks });
          else log.warn('not ready', { reasons: readiness.reasons });
          wasReady = readiness.ready;
        }
        return readiness;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  return async function handleReady(request: Request): Promise<Response> {
    if (!readOnly(request)) return methodNotAllowed();
    if (deps.stop?.signal.aborted) {
      return Response.json(
        { status: 'stopping', reasons: ['this instance is shutting down'] },
        { status: 503, headers: HEADERS },
      );
    }
    const readiness = await check();
    const body = {
      status: readiness.ready ? 'ready' : 'unavailable',
      ...(!readiness.ready && { reasons: readiness.reasons }),
      checks: readiness.checks,
      ...(readiness.backlog && { backlog: readiness.backlog }),
    };
    return Response.json(body, { status: readiness.ready ? 200 : 503, headers: HEADERS });
  };
}
