import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import type { RateLimitWindow } from './consume-rate-limit';

// Blocks of a rate-limit window's quota that this process has reserved in the database and hands
// out in memory (docs/rules.md#rate-limits, "How requests are counted"). A busy window's requests
// then write nothing: a reservation of many requests at once is one statement, made in the
// background before the block runs out. The database's count includes every block reserved, so
// however many processes hold blocks, a window never admits more than its limit. What keeps it
// exact enough at the edge:
// - windows with small limits (a free plan's day, Form B's minute) never use blocks: each of their
//   requests is counted in the database, exactly as a single counter would;
// - a block is sized to half a second of this process's own traffic on the window, and to at most
//   a sixteenth of what the window has left, so blocks shrink to nothing as the window fills and
//   its last requests are counted one by one;
// - what a block still holds a second after it was reserved goes back to the window, as does
//   everything on shutdown and before the settings app reads a count.
// X-RateLimit-Remaining is what the window has left as this process last saw it. While unused
// quota is on its way back, a statement's count may or may not include it (the two run on
// different connections): a request counted then takes one from what the process already knew,
// rather than a count it cannot read. So does a request counted while a block was being reserved
// whose own count could not be read that way: the database may have run either first.

/** Windows with a smaller limit are always counted request by request. */
export const MIN_BLOCK_LIMIT = 1000;
/** The largest block, and the share of a window's remaining quota one block may take. */
export const MAX_BLOCK = 1000;
const REMAINING_SHARE = 16;
/** A block covers about this much of the process's traffic on its window. */
const BLOCK_SECONDS = 0.5;
/** Unused quota goes back to the window this long after its latest reservation. */
export const LEASE_MS = 1000;
/** A window's lease that saw no request for this long is forgotten. */
const IDLE_MS = 60_000;

interface Lease {
  bucket: string;
  /** The window the block belongs to (a new window starts with an empty lease). */
  startMs: number;
  limit: number;
  /** Reserved in the database and not yet handed out. */
  left: number;
  /** The window's count in the database as of this process's latest write to it. */
  lastCount: number;
  /** When the latest block was reserved (performance.now()). */
  reservedAt: number;
  lastUsedAt: number;
  /** The block being reserved, until its answer is in hand. */
  refilling: Promise<void> | null;
  /** The latest give-back of unused quota from this window (see QuotaLeases.returnsMade). */
  lastReturn: number;
  /** The latest block whose count was taken from what the process knew (QuotaLeases.guesses). */
  lastGuess: number;
  /** Requests on the window in the current and the previous second: the block's size. */
  secondStartedAt: number;
  thisSecond: number;
  lastSecond: number;
}

/** A request taken from a block: what it leaves for X-RateLimit-Remaining, and how to undo it. */
export interface LocalTake {
  remaining: number;
  giveBack(): void;
}

/** What a statement that counts in windows may have missed: taken just before it is sent. */
export interface QuotaMark {
  returnsWritten: number;
  guesses: number;
}

export interface QuotaStats {
  /** Requests admitted from a block, without a database write. */
  fromBlocks: number;
  /** Blocks reserved, and requests they held. */
  blocks: number;
  reserved: number;
  /** Unused requests given back to their window. */
  returned: number;
}

export class QuotaLeases {
  private readonly leases = new Map<string, Lease>();
  readonly stats: QuotaStats = { fromBlocks: 0, blocks: 0, reserved: 0, returned: 0 };
  private readonly inFlight = new Set<Promise<unknown>>();
  private pendingReturns: { bucket: string; startMs: number; left: number; seq: number }[] = [];
  /** Give-backs made, numbered in order, and the latest one written to the database. */
  private returnsMade = 0;
  private returnsWritten = 0;
  /** Blocks whose window count was not read but taken as the known count plus the block. */
  private guesses = 0;

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** The lease of a window, reset when its bucket has moved on to a new window. */
  private leaseOf(window: RateLimitWindow): Lease {
    const startMs = window.start.getTime();
    let lease = this.leases.get(window.bucket);
    const t = this.clock();
    if (!lease) {
      lease = {
        bucket: window.bucket,
        startMs,
        limit: window.limit,
        left: 0,
        lastCount: 0,
        reservedAt: t,
        lastUsedAt: t,
        refilling: null,
        lastReturn: 0,
        lastGuess: 0,
        secondStartedAt: t,
        thisSecond: 0,
        lastSecond: 0,
      };
      this.leases.set(window.bucket, lease);
    } else if (lease.startMs !== startMs) {
      // The window ended: what its block held is of no use (a new window starts at zero).
      Object.assign(lease, { startMs, limit: window.limit, left: 0, lastCount: 0, reservedAt: t });
    }
    return lease;
  }

  /** Counts a request on the window towards the size of its next block. */
  private noteRequest(lease: Lease) {
    const t = this.clock();
    const elapsed = t - lease.secondStartedAt;
    if (elapsed >= 1000) {
      lease.lastSecond = elapsed >= 2000 ? 0 : lease.thisSecond;
      lease.thisSecond = 0;
      lease.secondStartedAt = t;
    }
    lease.thisSecond++;
    lease.lastUsedAt = t;
  }

  /**
   * Takes one request of the window from this process's block, or null when the block is empty
   * (or the window never uses blocks) and the request must be counted in the database.
   */
  take(window: RateLimitWindow): LocalTake | null {
    if (window.limit < MIN_BLOCK_LIMIT) return null;
    const lease = this.leaseOf(window);
    if (lease.left <= 0 || lease.limit !== window.limit) return null;
    this.noteRequest(lease);
    lease.left--;
    this.stats.fromBlocks++;
    let given = false;
    return {
      remaining: Math.max(0, lease.limit - (lease.lastCount - lease.left)),
      giveBack: () => {
        if (given || lease.startMs !== window.start.getTime()) return;
        given = true;
        lease.left++;
        this.stats.fromBlocks--;
      },
    };
  }

  /**
   * Taken just before a statement that counts in windows is sent, and handed to `counted` with
   * its answer.
   */
  get mark(): QuotaMark {
    return { returnsWritten: this.returnsWritten, guesses: this.guesses };
  }

  /**
   * Whether a count the database gave for the lease's window, by a statement sent at `mark`, may
   * or may not include quota given back since, or a block whose count was guessed since: it is
   * then not read.
   */
  private unsure(lease: Lease, mark: QuotaMark): boolean {
    return lease.lastReturn > mark.returnsWritten || lease.lastGuess > mark.guesses;
  }

  /**
   * A request of the window was counted in the database, by a statement sent at `mark`, which
   * answered `count`: what is left for X-RateLimit-Remaining, counting this process's unused block
   * as not yet admitted. While a block is being reserved, `count` may include it (its statement
   * ran first) or not: the answer waits for that block to be in hand, and is then right either
   * way. While unused quota was on its way back, `count` is not read: the request takes one from
   * the count this process last knew; so it does when the block it waited for was itself counted
   * that way (the database may have run the block's statement after this one).
   */
  async counted(window: RateLimitWindow, count: number, mark: QuotaMark): Promise<number> {
    if (window.limit < MIN_BLOCK_LIMIT) return Math.max(0, window.limit - count);
    const lease = this.leaseOf(window);
    if (lease.refilling) await lease.refilling;
    this.noteRequest(lease);
    if (lease.limit !== window.limit) {
      // The plan changed: a block reserved under the old limit is given back.
      this.giveBackLeft(lease);
      lease.limit = window.limit;
    }
    lease.lastCount = this.unsure(lease, mark) ? lease.lastCount + 1 : Math.max(lease.lastCount, count);
    return Math.max(0, lease.limit - (lease.lastCount - lease.left));
  }

  /** The block to reserve next for the window, or 0 when its requests are best counted one by one. */
  private blockSize(lease: Lease): number {
    const rate = Math.max(lease.lastSecond, lease.thisSecond);
    const share = Math.floor((lease.limit - lease.lastCount) / REMAINING_SHARE);
    const size = Math.min(MAX_BLOCK, Math.ceil(rate * BLOCK_SECONDS), share);
    return size >= 2 ? size : 0;
  }

  /**
   * Reserves the window's next block in the background when its traffic is worth one and the
   * current block is half spent. Never delays the request that triggers it.
   */
  refill(db: Queryable, window: RateLimitWindow, onError: (err: unknown) => void): void {
    if (window.limit < MIN_BLOCK_LIMIT) return;
    const lease = this.leases.get(window.bucket);
    if (!lease || lease.refilling || lease.startMs !== window.start.getTime()) return;
    const size = this.blockSize(lease);
    if (size === 0 || lease.left > size / 2) return;
    const { startMs, limit } = lease;
    const mark = this.mark;
    const work = reserveBlock(db, window, size, limit)
      .then((count) => {
        if (count === null || lease.startMs !== startMs) return;
        lease.left += size;
        if (this.unsure(lease, mark)) {
          lease.lastCount += size;
          lease.lastGuess = ++this.guesses;
        } else {
          lease.lastCount = Math.max(lease.lastCount, count);
        }
        lease.reservedAt = this.clock();
        this.stats.blocks++;
        this.stats.reserved += size;
      }, onError)
      .finally(() => {
        lease.refilling = null;
      });
    lease.refilling = work;
    this.track(work);
  }

  private track(work: Promise<unknown>) {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** What a block still holds is owed back to its window (given back by the next settle). */
  private giveBackLeft(lease: Lease): void {
    if (lease.left <= 0) return;
    lease.lastReturn = ++this.returnsMade;
    this.pendingReturns.push({
      bucket: lease.bucket,
      startMs: lease.startMs,
      left: lease.left,
      seq: lease.lastReturn,
    });
    // The window's count drops by what goes back: Remaining stays the same.
    lease.lastCount -= lease.left;
    lease.left = 0;
  }

  /** Whether anything is held, reserved or owed to the database. */
  get busy(): boolean {
    return this.leases.size > 0 || this.pendingReturns.length > 0 || this.inFlight.size > 0;
  }

  /**
   * Gives the unused part of blocks back to their windows: every block when `all`, else those
   * reserved over a second ago; forgets leases idle for a minute. One statement.
   */
  async settle(db: Queryable, opts: { all: boolean }): Promise<void> {
    if (opts.all) await Promise.allSettled([...this.inFlight]);
    const t = this.clock();
    for (const lease of this.leases.values()) {
      if (opts.all || t - lease.reservedAt >= LEASE_MS) this.giveBackLeft(lease);
      if (t - lease.lastUsedAt >= IDLE_MS && !lease.refilling) this.leases.delete(lease.bucket);
    }
    const returns = this.pendingReturns;
    this.pendingReturns = [];
    if (returns.length === 0) return;
    const rows = returns.map((r) => ({
      bucket: r.bucket,
      start: new Date(r.startMs).toISOString(),
      left: r.left,
    }));
    try {
      await db.execute(
        sql`update rate_limit_counters c set count = greatest(0, c.count - r.left)
            from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(bucket text, start timestamptz, "left" int)
            where c.bucket = r.bucket and c.window_start = r.start`,
      );
    } finally {
      // Written or not, the database's counts no longer change by these returns.
      this.returnsWritten = Math.max(this.returnsWritten, ...returns.map((r) => r.seq));
    }
    this.stats.returned += returns.reduce((n, r) => n + r.left, 0);
  }
}

/**
 * Reserves `size` requests of the window when it has room for all of them (counting every block
 * already reserved), in one statement: the window's new count, or null when it has not.
 */
async function reserveBlock(
  db: Queryable,
  window: RateLimitWindow,
  size: number,
  limit: number,
): Promise<number | null> {
  if (size > limit) return null;
  const rows = await queryRows<{ count: number }>(
    db,
    sql`insert into rate_limit_counters as c (bucket, window_start, count)
        values (${window.bucket}, ${window.start.toISOString()}::timestamptz, ${size}::int)
        on conflict (bucket, window_start) do update set count = c.count + ${size}::int
        where c.count + ${size}::int <= ${limit}::int
        returning c.count`,
  );
  return rows[0] ? Number(rows[0].count) : null;
}
