import type { Queryable } from '../db/client';
import type { FormName } from '../domain';
import { log } from '../log';
import { type RateLimitWindow, rateLimitResult } from '../rate-limit/consume-rate-limit';
import type { RateLimitRule } from '../rate-limit/plan-limits';
import { type LocalTake, QuotaLeases } from '../rate-limit/quota-leases';
import { hashApiKey, looksLikeApiKey } from './api-key-crypto';
import { type ReadMoment, readMoment, stillTrusted } from './key-trust';
import {
  type ApiPrincipal,
  type CountedRequest,
  countInDatabase,
  lookUpApiKey,
} from './authenticate-api-key';
import { UsageBuffer } from './usage-buffer';

/** How often usage is written and unused blocks go back, while there is any. */
export const FLUSH_INTERVAL_MS = 1000;
/** Keys whose principal this process remembers. */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * Authenticates API requests and counts them, one per process (docs/rules.md#rate-limits, "How
 * requests are counted"). A busy key's request needs no statement of its own:
 * - its key is answered from the last read of it for KEY_TRUST_MS (key-trust.ts); every change
 *   that stops a key or changes its account's access waits that long before it returns, so it
 *   reaches every instance by then;
 * - a busy window's requests come from a block of quota reserved in the background
 *   (quota-leases.ts); the others are counted in the same statement that reads the key;
 * - the key's usage and last_used_at are added up in memory and written once a second
 *   (usage-buffer.ts), and at once when the settings app reads them or the process stops.
 */
export class RequestCounter {
  readonly leases = new QuotaLeases();
  /** Requests whose key was answered from memory, without a statement. */
  readonly stats = { keysTrusted: 0 };
  private readonly usage = new UsageBuffer();
  /**
   * Keys seen lately (by hash): which windows their requests count in, and while the read is
   * trusted, the key's principal itself.
   */
  private readonly known = new Map<string, { principal: ApiPrincipal; read: ReadMoment }>();
  /** The armed usage write: its promise, what settles it, and whether a request was handed it. */
  private scheduled: {
    timer: NodeJS.Timeout;
    done: () => void;
    written: Promise<void>;
    handed: boolean;
  } | null = null;
  private db: Queryable | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly opts: {
      flushIntervalMs?: number;
      /**
       * Called in the first request that counts something for the next once-a-second write, with
       * that write: serverless runtimes keep the function up until it is done (Next's after()), so
       * a function frozen or stopped between requests loses nothing, and the requests of that
       * second share the write. Never called outside a request.
       */
      onWriteScheduled?: (written: Promise<void>) => void;
    } = {},
  ) {}

  /** The principal of a recorder API request (not rate limited), its usage counted. */
  async authenticate(db: Queryable, token: string | null, now: Date): Promise<ApiPrincipal | null> {
    if (!token || !looksLikeApiKey(token)) return null;
    const keyHash = hashApiKey(token);
    const principal = this.trusted(keyHash, now) ?? (await this.read(db, keyHash, now));
    if (principal) this.recordUsage(db, principal, now);
    return principal;
  }

  /** The principal remembered for a key, while its read is trusted and the key has not expired. */
  private trusted(keyHash: string, now: Date): ApiPrincipal | null {
    const known = this.known.get(keyHash);
    if (!known || !stillTrusted(known.read)) return null;
    const { expiresAt } = known.principal.key;
    if (expiresAt !== null && !(expiresAt > now)) return null;
    this.stats.keysTrusted++;
    return known.principal;
  }

  /** Reads a key's principal from the database, and remembers it (or forgets the key). */
  private async read(db: Queryable, keyHash: string, now: Date): Promise<ApiPrincipal | null> {
    const read = readMoment();
    const principal = await lookUpApiKey(db, keyHash, now);
    if (principal) this.remember(keyHash, principal, read);
    else this.known.delete(keyHash);
    return principal;
  }

  /**
   * Authenticates a /v1 or MCP request and counts it against its form's rate-limit windows, all or
   * none of them; null for a missing, unknown, revoked or expired key, which counts nothing.
   */
  async authenticateAndCount(
    db: Queryable,
    token: string | null,
    opts: { form?: FormName; rules: Record<FormName, readonly RateLimitRule[]>; now: Date },
  ): Promise<CountedRequest | null> {
    if (!token || !looksLikeApiKey(token)) return null;
    const { rules, now } = opts;
    const keyHash = hashApiKey(token);
    const known = this.known.get(keyHash)?.principal;
    let takes: (LocalTake | null)[] = [];
    let skipForm: FormName | undefined;
    if (known) {
      skipForm = opts.form ?? known.key.form;
      const windows = rules[skipForm].map((rule) => rule.window(known, now));
      takes = windows.map((w) => this.leases.take(w));
      if (takes.every((t) => t !== null)) {
        // Every window had quota in hand: the request is admitted by its key, read unless trusted.
        const principal = this.trusted(keyHash, now) ?? (await this.read(db, keyHash, now));
        const fresh =
          principal === known
            ? windows
            : principal && rules[skipForm].map((rule) => rule.window(principal, now));
        if (principal && fresh?.every((w, i) => w.limit === windows[i]?.limit)) {
          this.recordUsage(db, principal, now, fresh);
          const [first] = fresh;
          const [take] = takes;
          if (!first || !take) throw new Error('a form without rate-limit windows');
          return {
            principal,
            form: skipForm,
            limit: { ...rateLimitResult(first, 0, now), remaining: take.remaining },
          };
        }
        // Revoked, or its plan changed since: counted again from the database.
        for (const t of takes) t?.giveBack();
        takes = [];
        if (!principal) return null;
      }
    }
    const positions = takes.flatMap((t, i) => (t ? [i] : []));
    const mark = this.leases.mark;
    const read = readMoment();
    const result = await countInDatabase(db, keyHash, {
      ...opts,
      ...(skipForm && positions.length > 0 && { skip: { form: skipForm, positions } }),
    });
    if (!result || result.form !== (skipForm ?? result.form)) for (const t of takes) t?.giveBack();
    if (!result) {
      this.known.delete(keyHash);
      return null;
    }
    const { principal, form, counts } = result;
    this.remember(keyHash, principal, read);
    const windows = rules[form].map((rule) => rule.window(principal, now));
    const local = (i: number) => (form === skipForm ? (takes[i] ?? null) : null);
    const counting = windows.flatMap((w, i) =>
      local(i) ? [] : [{ w, seen: 0, counted: null, ...counts[i] }],
    );
    if (counting.every((c) => c.counted !== null)) {
      const remaining = await Promise.all(
        windows.map((w, i) => local(i)?.remaining ?? this.leases.counted(w, counts[i]?.counted ?? 0, mark)),
      );
      this.recordUsage(db, principal, now, windows);
      const [first] = windows;
      if (!first) throw new Error('a form without rate-limit windows');
      return { principal, form, limit: { ...rateLimitResult(first, 0, now), remaining: remaining[0] ?? 0 } };
    }
    // Refused: by the windows full in the statement's snapshot or (when the upserts found them
    // filled since) by all that counted in the database; what came from blocks is given back. Of
    // several, the one that frees up last is described.
    for (const t of takes) t?.giveBack();
    this.recordUsage(db, principal, now);
    const full = counting.filter((c) => c.seen >= c.w.limit).map((c) => c.w);
    const [refused] = (full.length > 0 ? full : counting.map((c) => c.w)).sort(
      (a, b) => b.end.getTime() - a.end.getTime(),
    );
    if (!refused) throw new Error('a refusal without a window');
    return { principal, form, limit: rateLimitResult(refused, null, now) };
  }

  private remember(keyHash: string, principal: ApiPrincipal, read: ReadMoment) {
    this.known.delete(keyHash);
    this.known.set(keyHash, { principal, read });
    if (this.known.size > MAX_REMEMBERED_KEYS) {
      const [oldest] = this.known.keys();
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }

  /** Adds the request to the key's usage; tops up the windows' blocks when they run low. */
  private recordUsage(db: Queryable, principal: ApiPrincipal, now: Date, windows: RateLimitWindow[] = []) {
    this.usage.record(principal.key.id, now);
    for (const w of windows)
      this.leases.refill(db, w, (err) => log.warn('reserving a block of rate-limit quota failed', { err }));
    this.schedule(db, { byRequest: true });
  }

  /**
   * Arms the next write unless it is armed, and hands it to the request that asks (onWriteScheduled)
   * unless one has it already. The writes that follow on from a write (while blocks are held or
   * windows remembered, up to a minute after the last request) are handed to no request: its
   * function would otherwise be kept up, and a server's shutdown would wait, for all of that time.
   */
  private schedule(db: Queryable, { byRequest }: { byRequest: boolean }) {
    this.db = db;
    let scheduled = this.scheduled;
    if (!scheduled) {
      let done = () => {};
      const written = new Promise<void>((resolve) => {
        done = resolve;
      });
      const timer = setTimeout(() => {
        this.scheduled = null;
        void this.write({ all: false })
          .catch((err: unknown) => log.warn('writing API key usage failed; kept for the next write', { err }))
          .finally(() => {
            done();
            if (this.usage.size > 0 || this.leases.busy) this.schedule(db, { byRequest: false });
          });
      }, this.opts.flushIntervalMs ?? FLUSH_INTERVAL_MS);
      timer.unref();
      scheduled = { timer, done, written, handed: false };
      this.scheduled = scheduled;
    }
    if (byRequest && !scheduled.handed) {
      scheduled.handed = true;
      this.opts.onWriteScheduled?.(scheduled.written);
    }
  }

  /** One write of what is pending: usage, and blocks given back (all of them, or the stale). */
  private write(opts: { all: boolean }): Promise<void> {
    const db = this.db;
    if (!db) return Promise.resolve();
    const previous = this.flushing ?? Promise.resolve();
    const next = previous
      .catch(() => {})
      .then(() => Promise.all([this.usage.flush(db), this.leases.settle(db, opts)]))
      .then(() => {});
    this.flushing = next;
    void next
      .finally(() => {
        if (this.flushing === next) this.flushing = null;
      })
      .catch(() => {});
    return next;
  }

  /**
   * Writes everything held in memory now: the usage figures, and every unused block back to its
   * window (the settings app calls this before it reads them; shutdown and serverless runs too).
   */
  async flush(db?: Queryable): Promise<void> {
    if (db) this.db = db;
    await this.write({ all: true });
  }

  /**
   * Writes everything held in memory and cancels the write the timer holds: for a database about
   * to be closed, which that write would otherwise meet a second later.
   */
  async close(db?: Queryable): Promise<void> {
    const scheduled = this.scheduled;
    this.scheduled = null;
    if (scheduled) clearTimeout(scheduled.timer);
    try {
      await this.flush(db);
    } finally {
      scheduled?.done();
    }
  }
}
