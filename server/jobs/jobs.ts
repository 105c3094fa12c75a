import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Db, type Queryable } from '../db/client';
import { jobs, type JobKind } from '../db/schema';

export type Job = typeof jobs.$inferSelect;
/** A job this dispatcher claimed: `lease` is the `locked_until` its claim wrote, as text. */
export type ClaimedJob = Job & { lease: string };

/** After this many failed runs a job stops being retried and keeps its last error (for the log). */
export const MAX_JOB_ATTEMPTS = 6;
/** A claimed job is another dispatcher's to take over once this lease has run out. */
export const JOB_LEASE_MS = 5 * 60_000;

/** A job to queue: a meeting's work, or a password-reset email for an address (no account yet). */
export type NewJob =
  | { kind: Exclude<JobKind, 'send_password_reset'>; accountId: string; meetingId: string; dueAt?: Date }
  | { kind: 'send_password_reset'; email: string; dueAt?: Date };

export async function enqueueJob(tx: Queryable, job: NewJob): Promise<void> {
  await tx.insert(jobs).values({ id: randomUUID(), ...job, dueAt: job.dueAt ?? new Date() });
}

/** Drops queued jobs of a kind for a meeting (e.g. a summary arrived before one was generated). */
export async function cancelJobs(tx: Queryable, meetingId: string, kind: JobKind): Promise<void> {
  await tx
    .delete(jobs)
    .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, kind), isNull(jobs.lockedUntil)));
}

/**
 * Claims up to `limit` due jobs for this dispatcher. SKIP LOCKED lets any number of
 * dispatchers claim at once without taking the same row; the lease hands a job whose
 * dispatcher died to another one later.
 */
export async function claimJobs(db: Db, limit: number, leaseMs = JOB_LEASE_MS): Promise<ClaimedJob[]> {
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`update jobs set locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = attempts + 1
        where id in (
          select id from jobs
          where failed_at is null and due_at <= now() and (locked_until is null or locked_until < now())
          order by due_at
          limit ${limit}
          for update skip locked)
        returning id, kind, account_id, meeting_id, email, attempts, locked_until::text as lease`,
  );
  return rows.map((r) => ({
    id: r.id as string,
    kind: r.kind as JobKind,
    accountId: (r.account_id as string | null) ?? null,
    meetingId: (r.meeting_id as string | null) ?? null,
    email: (r.email as string | null) ?? null,
    attempts: Number(r.attempts),
    dueAt: new Date(),
    lockedUntil: null,
    lastError: null,
    failedAt: null,
    createdAt: new Date(),
    lease: r.lease as string,
  }));
}

/**
 * Clears the leases of claimed jobs this dispatcher will not finish (it is stopping), so another
 * takes them at once. A job that never started gives back the attempt its claim counted; one
 * cut short keeps it. Only the lease each claim wrote is cleared. Returns how many.
 */
export async function releaseJobs(
  db: Db,
  held: readonly { id: string; lease: string; started: boolean }[],
): Promise<number> {
  if (held.length === 0) return 0;
  const rows = await queryRows(
    db,
    sql`update jobs j set locked_until = null,
          attempts = case when r.started then j.attempts else greatest(j.attempts - 1, 0) end
        from jsonb_to_recordset(${JSON.stringify(held)}::jsonb) as r(id uuid, lease text, started boolean)
        where j.id = r.id and j.locked_until = r.lease::timestamptz
        returning j.id`,
  );
  return rows.length;
}

export async function completeJob(db: Db, job: Job): Promise<void> {
  await db.delete(jobs).where(eq(jobs.id, job.id));
}

/**
 * Retries later with exponential backoff (10 s, 20 s, 40 s, …), or gives up after MAX_JOB_ATTEMPTS.
 * A job given up keeps its row and last error, except one that holds an address: that row is
 * deleted, so an address is kept no longer than its email takes (the caller logs the failure).
 */
export async function failJob(db: Db, job: Job, error: unknown): Promise<'retry' | 'failed'> {
  const message = error instanceof Error ? error.message : String(error);
  if (job.attempts >= MAX_JOB_ATTEMPTS) {
    if (job.email !== null) {
      await db.delete(jobs).where(eq(jobs.id, job.id));
      return 'failed';
    }
    await db
      .update(jobs)
      .set({ failedAt: new Date(), lockedUntil: null, lastError: message })
      .where(eq(jobs.id, job.id));
    return 'failed';
  }
  const delayMs = 10_000 * 2 ** (job.attempts - 1);
  await db
    .update(jobs)
    .set({ dueAt: new Date(Date.now() + delayMs), lockedUntil: null, lastError: message })
    .where(eq(jobs.id, job.id));
  return 'retry';
}
