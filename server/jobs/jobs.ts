import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Db, type Queryable } from '../db/client';
import { JOB_KINDS, jobs, type JobKind } from '../db/schema';

export type Job = typeof jobs.$inferSelect;
/**
 * A job this dispatcher claimed: `lease` is the `locked_until` its claim wrote, as text;
 * `waitedMs`, how long it had been due when claimed (the queue's delay, for its trace).
 */
export type ClaimedJob = Job & { lease: string; waitedMs: number };

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
 * The two lanes of background work. `bulk` is embedding a transcript: the model's work for every
 * passage, seconds for a long meeting. `quick` is the rest: a summary, its one embedding, a
 * password-reset email. They are claimed and run apart, so cheap work never waits behind a bulk
 * import's embeddings.
 */
export type JobLane = 'quick' | 'bulk';
export const BULK_KINDS: readonly JobKind[] = ['embed_transcript'];
const laneKinds = (lane: JobLane) => JOB_KINDS.filter((k) => BULK_KINDS.includes(k) === (lane === 'bulk'));
/** The kinds of a lane (of both lanes when none is named), as a list for `kind in (…)`. */
const kindList = (lane?: JobLane) =>
  sql.join(
    (lane ? laneKinds(lane) : JOB_KINDS).map((k) => sql`${k}`),
    sql`, `,
  );

/**
 * Whether a job of the lane (both lanes when none is named) is to run within `withinMs` from now,
 * whether another dispatcher holds it or not (one that fails comes back due later): a cron run
 * that waits for work falling due stops once this is false.
 */
export async function jobFallsDueWithin(db: Db, withinMs: number, lane?: JobLane): Promise<boolean> {
  const [row] = await queryRows<{ due: boolean }>(
    db,
    sql`select exists (
          select 1 from jobs
          where failed_at is null and kind in (${kindList(lane)})
            and due_at < now() + make_interval(secs => ${Math.max(0, withinMs) / 1000})) as due`,
  );
  return row?.due === true;
}

/** How many of the best candidates a claim considers, per job it claims: room for other dispatchers' locks. */
const CANDIDATES_PER_CLAIM = 8;

/**
 * Claims up to `limit` due jobs of a lane (both lanes when none is named) for this dispatcher.
 *
 * Fair across accounts: the accounts with due jobs take turns. An account with jobs in flight
 * waits one turn for each, and among accounts with as many, the one served least recently goes
 * first (job_turns). So a bulk import of hundreds of meetings holds a new meeting of another
 * account behind at most the jobs already running, not behind the whole import, and one account
 * alone still gets every dispatcher. Within an account, jobs go oldest first, so a meeting's
 * steps keep the order they were queued in. (Jobs without an account, password-reset emails,
 * take turns as one, ahead of nobody's history.)
 *
 * SKIP LOCKED lets any number of dispatchers claim at once without taking the same row; the
 * lease hands a job whose dispatcher died to another one later. The rows are picked in a
 * materialized step of their own, run once: as a subquery of the UPDATE (`where id in (… limit n
 * for update skip locked)`), PostgreSQL may run it again for each row it scans, and each run,
 * skipping the rows the statement has just locked, hands over another one, so a claim of one
 * job locked every due job (seen under load on PostgreSQL 15, never on PGlite) while returning one.
 */
export async function claimJobs(
  db: Db,
  limit: number,
  opts: { lane?: JobLane; leaseMs?: number } = {},
): Promise<ClaimedJob[]> {
  const leaseMs = opts.leaseMs ?? JOB_LEASE_MS;
  const kinds = kindList(opts.lane);
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`with in_flight as (
          select account_id, count(*) as n from jobs
          where failed_at is null and locked_until >= now() and kind in (${kinds})
          group by account_id),
        ranked as (
          select j.id, j.due_at, j.account_id,
                 row_number() over (partition by j.account_id order by j.due_at, j.id)
                   + coalesce(f.n, 0) as turn
          from jobs j left join in_flight f on f.account_id is not distinct from j.account_id
          where j.failed_at is null and j.due_at <= now()
            and (j.locked_until is null or j.locked_until < now()) and j.kind in (${kinds})),
        candidates as (
          select r.id, r.turn, t.served_at, r.due_at
          from ranked r left join job_turns t on t.account_id = r.account_id
          order by r.turn, t.served_at nulls first, r.due_at, r.id
          limit ${limit * CANDIDATES_PER_CLAIM}),
        picked as materialized (
          select j.id from jobs j join candidates c on c.id = j.id
          where j.failed_at is null and (j.locked_until is null or j.locked_until < now())
          order by c.turn, c.served_at nulls first, c.due_at, c.id
          limit ${limit}
          for update of j skip locked),
        claimed as (
          update jobs set locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = attempts + 1
          from picked where jobs.id = picked.id
          returning jobs.id, kind, account_id, meeting_id, email, attempts, locked_until::text as lease,
                    (extract(epoch from now() - jobs.due_at) * 1000)::float8 as waited_ms),
        served as (
          insert into job_turns (account_id, served_at)
          select distinct account_id, now() from claimed where account_id is not null
          on conflict (account_id) do update set served_at = excluded.served_at)
        select * from claimed`,
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
    waitedMs: Math.max(0, Number(r.waited_ms)),
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
