import { timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/client';
import type { WorkStop } from '../jobs/work-stop';
import type { Services } from '../services';
import { runDueWork } from './run-due-work';

/** How long one cron request keeps working: under Vercel's 60-second function limit. */
export const CRON_BUDGET_MS = 50_000;

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

// GET|POST /api/cron/dispatch – Vercel Cron: runs all due work until none is due or the budget ends
export function createCronHandler(deps: {
  getDatabase(): Promise<Database>;
  services: Services;
  cronSecret: string | undefined;
  /** `next dev`: without CRON_SECRET the route is open only there. */
  openWithoutSecret: boolean;
  budgetMs?: number;
  /** Once the process stops, new runs are refused (503) and a run in progress winds down. */
  stop?: WorkStop;
}) {
  return async function handleCron(request: Request): Promise<Response> {
    const auth = request.headers.get('authorization') ?? '';
    const allowed = deps.cronSecret ? sameSecret(auth, `Bearer ${deps.cronSecret}`) : deps.openWithoutSecret;
    if (!allowed) {
      return Response.json(
        {
          error: deps.cronSecret
            ? 'Missing or wrong Authorization: Bearer <CRON_SECRET>'
            : 'Set CRON_SECRET to call this route',
        },
        { status: 401 },
      );
    }
    if (deps.stop?.signal.aborted) {
      // Another instance (or the next tick) runs the work; this one is shutting down.
      return Response.json(
        { error: 'This instance is shutting down; no new background work starts here' },
        { status: 503, headers: { 'Retry-After': '5' } },
      );
    }
    const started = Date.now();
    const { db } = await deps.getDatabase();
    const counts = await runDueWork(db, deps.services, {
      budgetMs: deps.budgetMs ?? CRON_BUDGET_MS,
      waitForDue: true,
      ...(deps.stop && { stop: deps.stop }),
    });
    return Response.json({ ...counts, duration_ms: Date.now() - started });
  };
}
