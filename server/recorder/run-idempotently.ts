import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client';
import { AppError, conflict } from '../errors';

// A recorder call sent again with the same Idempotency-Key (its first answer
// lost) gets the first answer again instead of making a second meeting or event.
//
// - Keys are per account and remembered for 24 hours from the first request.
// - Only a success (2xx) is remembered. A request that failed (4xx, 5xx, or the server died
//   before it finished) leaves nothing behind, so the client can retry it with the same key.
// - While the first request is running, the same key gets a 409 "in progress". A claim whose
//   request never finished (the process died) is given up after IN_PROGRESS_LEASE_MS.
// - Limits: the answer is stored after the work commits, in a statement of its own; a process
//   that dies between the two leaves a claim that lapses after the lease, and a retry after
//   that does the work again.

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IN_PROGRESS_LEASE_MS = 10 * 60 * 1000;
export const MAX_KEY_LENGTH = 255;

export interface StoredAnswer {
  status: number;
  body: string;
}

export interface IdempotentRequest {
  accountId: string;
  key: string;
  method: string;
  path: string;
  /** The parsed JSON body; key order does not matter. */
  body: unknown;
}

/** The Idempotency-Key header: absent is fine; otherwise 1 to 255 printable ASCII characters. */
export function parseIdempotencyKey(header: string | null): string | null {
  if (header === null) return null;
  if (!/^[\x20-\x7e]+$/.test(header) || header.length > MAX_KEY_LENGTH) {
    throw new AppError(
      'invalid_request',
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`,
    );
  }
  return header;
}

/** JSON with object keys sorted, so that two spellings of one body share a fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const fingerprintOf = (request: IdempotentRequest) =>
  createHash('sha256')
    .update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`)
    .digest('hex');

type Row = {
  fingerprint: string;
  status: number | null;
  response_body: string | null;
  created_at: string | Date;
};

/**
 * Runs `work` once per key: the first request with a key runs it, a repeat of that request
 * within 24 hours gets its stored answer (replayed: true), and a different request with the
 * same key is a 409.
 */
export async function runIdempotently(
  db: Db,
  request: IdempotentRequest,
  work: () => Promise<StoredAnswer>,
  now: () => Date = () => new Date(),
): Promise<{ answer: StoredAnswer; replayed: boolean }> {
  const fingerprint = fingerprintOf(request);
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimedAt = now();
    const claimed = await queryRows<{ created_at: string | Date }>(
      db,
      sql`insert into idempotency_keys (account_id, key, fingerprint, status, response_body, created_at)
          values (${request.accountId}, ${request.key}, ${fingerprint}, null, null, ${claimedAt.toISOString()})
          on conflict (account_id, key) do update
            set fingerprint = excluded.fingerprint, status = null, response_body = null, created_at = excluded.created_at
            where idempotency_keys.created_at < ${new Date(claimedAt.getTime() - IDEMPOTENCY_TTL_MS).toISOString()}
               or (idempotency_keys.status is null
                   and idempotency_keys.created_at < ${new Date(claimedAt.getTime() - IN_PROGRESS_LEASE_MS).toISOString()})
          returning created_at`,
    );
    if (claimed.length > 0) {
      await deleteExpiredKeys(db, claimedAt);
      return { answer: await runClaimed(db, request, claimedAt, work), replayed: false };
    }
    const [existing] = await queryRows<Row>(
      db,
      sql`select fingerprint, status, response_body, created_at from idempotency_keys
          where account_id = ${request.accountId} and key = ${request.key}`,
    );
    // Gone meanwhile (the first request failed and let go of the key): try to claim it again.
    if (!existing) continue;
    if (existing.fingerprint !== fingerprint) {
      throw conflict(
        'This Idempotency-Key was already used with a different request (method, path or body) in the last 24 hours',
      );
    }
    if (existing.status === null || existing.response_body === null) {
      throw conflict(
        'A request with this Idempotency-Key is still in progress; retry it after it has finished',
      );
    }
    return { answer: { status: Number(existing.status), body: existing.response_body }, replayed: true };
  }
  throw conflict('A request with this Idempotency-Key is still in progress; retry it after it has finished');
}

async function runClaimed(
  db: Db,
  request: IdempotentRequest,
  claimedAt: Date,
  work: () => Promise<StoredAnswer>,
): Promise<StoredAnswer> {
  // The claim is ours while its created_at is the one we wrote (a lapsed claim is taken over with a new one).
  const ours = sql`account_id = ${request.accountId} and key = ${request.key} and created_at = ${claimedAt.toISOString()} and status is null`;
  let answer: StoredAnswer;
  try {
    answer = await work();
  } catch (err) {
    await db.execute(sql`delete from idempotency_keys where ${ours}`);
    throw err;
  }
  if (answer.status >= 200 && answer.status < 300) {
    await db.execute(
      sql`update idempotency_keys set status = ${answer.status}, response_body = ${answer.body} where ${ours}`,
    );
  } else {
    await db.execute(sql`delete from idempotency_keys where ${ours}`);
  }
  return answer;
}

/** Opportunistic clean-up, on each new claim: keys past their 24 hours (indexed by created_at). */
async function deleteExpiredKeys(db: Db, at: Date): Promise<void> {
  await db.execute(
    sql`delete from idempotency_keys where created_at < ${new Date(at.getTime() - IDEMPOTENCY_TTL_MS).toISOString()}`,
  );
}
