import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client';
import { JOB_KINDS, type JobKind } from '../db/schema';
import type { EmbeddingProvider } from '../embeddings/provider';

// What /api/ready checks: the database answers, every migration this build ships is applied,
// the configured embedder's model can be loaded, and how much background work waits. One SQL
// statement does the database's share.

/** Rows the backlog counts look at, at most (the jobs, the deliveries): the statement's work stays bounded. */
export const BACKLOG_COUNT_CAP = 10_000;

export interface QueueBacklog {
  /** Items queued and not given up: due, scheduled for later, or being worked on. */
  depth: number;
  /** Of those, due now and held by no dispatcher. */
  due: number;
  /** How long the oldest of the due ones has been due; null when none is. */
  oldest_due_age_ms: number | null;
}

export interface Backlog {
  jobs: Record<JobKind, QueueBacklog>;
  deliveries: QueueBacklog;
  /** A queue held more than BACKLOG_COUNT_CAP items: its figures describe the first (oldest) ones. */
  capped: boolean;
}

export interface ReadinessChecks {
  database: { ok: boolean; kind?: Database['kind'] };
  migrations?: { ok: boolean; applied: number; shipped: number; missing?: string[] };
  embedder: { ok: boolean; provider: string; model: string };
}

export interface Readiness {
  ready: boolean;
  reasons: string[];
  checks: ReadinessChecks;
  backlog?: Backlog;
}

interface ShippedMigration {
  tag: string;
  when: number;
}

const shippedByFolder = new Map<string, ShippedMigration[]>();

/** The migrations in `folder`'s journal (read once: a build's migrations do not change). */
export function shippedMigrations(folder: string): ShippedMigration[] {
  let shipped = shippedByFolder.get(folder);
  if (!shipped) {
    const journal = JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
      entries: ShippedMigration[];
    };
    shipped = journal.entries.map(({ tag, when }) => ({ tag, when }));
    shippedByFolder.set(folder, shipped);
  }
  return shipped;
}

const emptyQueue = (): QueueBacklog => ({ depth: 0, due: 0, oldest_due_age_ms: null });

interface ReadinessRow extends Record<string, unknown> {
  applied: number | string;
  last_applied: string | null;
  jobs: string;
  deliveries: string;
}

/**
 * The statement: the applied migrations (drizzle's own table, as its migrator reads it), then
 * each queue's depth, due items and oldest due item, over at most BACKLOG_COUNT_CAP rows each,
 * read in due order through the partial indexes the dispatchers claim with.
 */
function readinessStatement() {
  const cap = sql.raw(String(BACKLOG_COUNT_CAP + 1));
  return sql`select
    (select count(*) from drizzle.__drizzle_migrations)::int as applied,
    (select max(created_at) from drizzle.__drizzle_migrations)::text as last_applied,
    (select coalesce(json_agg(k), '[]'::json) from (
       select kind, count(*)::int as depth, count(*) filter (where due)::int as due,
         floor(extract(epoch from now() - min(due_at) filter (where due)) * 1000)::bigint as oldest_due_age_ms
       from (select kind, due_at, due_at <= now() and (locked_until is null or locked_until < now()) as due
             from jobs where failed_at is null order by due_at limit ${cap}) j
       group by kind) k)::text as jobs,
    (select row_to_json(d) from (
       select count(*)::int as depth, count(*) filter (where due)::int as due,
         floor(extract(epoch from now() - min(next_attempt_at) filter (where due)) * 1000)::bigint as oldest_due_age_ms
       from (select next_attempt_at,
               next_attempt_at <= now() and (locked_until is null or locked_until < now()) as due
             from deliveries where status = 'pending' order by next_attempt_at limit ${cap}) q) d)::text as deliveries`;
}

function queueOf(row: { depth: number; due: number; oldest_due_age_ms: number | string | null }) {
  return {
    depth: Math.min(row.depth, BACKLOG_COUNT_CAP),
    due: Math.min(row.due, BACKLOG_COUNT_CAP),
    oldest_due_age_ms: row.oldest_due_age_ms === null ? null : Math.max(0, Number(row.oldest_due_age_ms)),
  };
}

/** A failure as an unauthenticated caller may read it: its code or kind, not its message. */
export function failureKind(err: unknown): string {
  // The driver's error is often wrapped (drizzle's query error): its code is deeper down.
  let name: string | null = null;
  for (
    let e = err as { code?: unknown; name?: unknown; cause?: unknown } | null, depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (typeof e.code === 'string' && e.code !== '') return e.code;
    if (name === null && typeof e.name === 'string' && e.name !== '' && e.name !== 'Error') name = e.name;
    e = e.cause as typeof e;
  }
  return name ?? 'error';
}

export class CheckTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'CheckTimeoutError';
  }
}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(ms)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface ReadinessDeps {
  getDatabase(): Promise<Database>;
  embedder: EmbeddingProvider;
  migrationsFolder: string;
  /** How long the database may take to answer before it counts as unreachable. */
  timeoutMs: number;
  /**
   * The database's answer still awaited from an earlier check that gave up on it: while it is,
   * no other statement is sent, so a database that hangs does not collect one per probe.
   */
  waiting?: { query: Promise<unknown> | null };
}

/** Runs every check once. Never throws: a failed check is a reason. */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const reasons: string[] = [];
  const provider = deps.embedder.provider ?? 'custom';
  let embedderProblem: string | null;
  try {
    embedderProblem = deps.embedder.unavailableReason?.() ?? null;
  } catch (err) {
    embedderProblem = `the check failed (${failureKind(err)})`;
  }
  const checks: ReadinessChecks = {
    database: { ok: false },
    embedder: { ok: embedderProblem === null, provider, model: deps.embedder.model },
  };

  let row: ReadinessRow | undefined;
  const waiting = deps.waiting ?? { query: null };
  try {
    const database = await within(deps.timeoutMs, deps.getDatabase());
    checks.database.kind = database.kind;
    if (waiting.query) throw new CheckTimeoutError(deps.timeoutMs);
    const query = queryRows<ReadinessRow>(database.db, readinessStatement());
    waiting.query = query;
    const settle = () => {
      if (waiting.query === query) waiting.query = null;
    };
    query.then(settle, settle);
    [row] = await within(deps.timeoutMs, query);
    checks.database.ok = row !== undefined;
  } catch (err) {
    reasons.push(
      err instanceof CheckTimeoutError
        ? `database: ${err.message}`
        : `database: unreachable (${failureKind(err)})`,
    );
  }

  let backlog: Backlog | undefined;
  if (row) {
    let shipped: ShippedMigration[] | null = null;
    try {
      shipped = shippedMigrations(deps.migrationsFolder);
    } catch (err) {
      reasons.push(`migrations: the shipped migrations cannot be read (${failureKind(err)})`);
    }
    if (shipped) {
      // As drizzle's migrator decides: a shipped migration newer than the last applied is pending.
      const last = row.last_applied === null ? Number.NEGATIVE_INFINITY : Number(row.last_applied);
      const missing = shipped.filter((m) => m.when > last).map((m) => m.tag);
      checks.migrations = {
        ok: missing.length === 0,
        applied: Number(row.applied),
        shipped: shipped.length,
        ...(missing.length > 0 && { missing }),
      };
      if (missing.length > 0)
        reasons.push(`migrations: ${missing.length} not applied (${missing.slice(0, 3).join(', ')})`);
    }
    const jobRows = JSON.parse(row.jobs) as (Parameters<typeof queueOf>[0] & { kind: string })[];
    const deliveries = JSON.parse(row.deliveries) as Parameters<typeof queueOf>[0];
    const jobs = Object.fromEntries(JOB_KINDS.map((kind) => [kind, emptyQueue()])) as Record<
      JobKind,
      QueueBacklog
    >;
    for (const r of jobRows)
      if ((JOB_KINDS as readonly string[]).includes(r.kind)) jobs[r.kind as JobKind] = queueOf(r);
    backlog = {
      jobs,
      deliveries: queueOf(deliveries),
      capped:
        deliveries.depth > BACKLOG_COUNT_CAP ||
        jobRows.reduce((sum, r) => sum + r.depth, 0) > BACKLOG_COUNT_CAP,
    };
  }
  if (embedderProblem !== null) reasons.push(`embedder (${provider}): ${embedderProblem}`);
  return { ready: reasons.length === 0, reasons, checks, ...(backlog && { backlog }) };
}
