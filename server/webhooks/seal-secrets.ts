import { and, asc, eq, gt, notLike, or, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { webhookEndpoints } from '../db/schema';
import { isSealed, type SecretBox } from './secret-box';

// The stored signing secrets (`secret`, `previous_secret`) are sealed values
// (secret-box.ts). These passes bring older rows there: plaintext from before encryption, and
// values sealed under a key that is being rotated out. Each value is written back only where the
// column still holds what was read, so a rotation or deletion that happens meanwhile is never
// undone; a value changed meanwhile was written by the service, sealed under its current key.

const BATCH = 100;
/** Passes over the table while conditional updates keep losing to concurrent changes. */
const MAX_PASSES = 3;

type Column = 'secret' | 'previous_secret';
const COLUMNS = {
  secret: webhookEndpoints.secret,
  previous_secret: webhookEndpoints.previousSecret,
} as const;

interface StoredSecrets {
  id: string;
  secret: string;
  previousSecret: string | null;
}

/**
 * Calls `visit` for every endpoint where `needsWork` holds, in batches in id order (the id
 * moves on after each batch, so the walk ends even when a value cannot be changed).
 */
async function eachEndpoint(
  db: Queryable,
  needsWork: SQL,
  visit: (row: StoredSecrets) => Promise<void>,
): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const rows: StoredSecrets[] = await db
      .select({
        id: webhookEndpoints.id,
        secret: webhookEndpoints.secret,
        previousSecret: webhookEndpoints.previousSecret,
      })
      .from(webhookEndpoints)
      .where(after === null ? needsWork : and(needsWork, gt(webhookEndpoints.id, after)))
      .orderBy(asc(webhookEndpoints.id))
      .limit(BATCH);
    for (const row of rows) await visit(row);
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return;
    after = last.id;
  }
}

/** Writes `next` into the column if it still holds `read`; false if something changed it meanwhile. */
async function replaceValue(db: Queryable, id: string, column: Column, read: string, next: string) {
  const updated = await db
    .update(webhookEndpoints)
    .set(column === 'secret' ? { secret: next } : { previousSecret: next })
    .where(and(eq(webhookEndpoints.id, id), eq(COLUMNS[column], read)))
    .returning({ id: webhookEndpoints.id });
  return updated.length > 0;
}

const valuesOf = (row: StoredSecrets): [Column, string][] =>
  row.previousSecret === null
    ? [['secret', row.secret]]
    : [
        ['secret', row.secret],
        ['previous_secret', row.previousSecret],
      ];

/**
 * Seals every plaintext secret (a stored value without the `enc:` prefix, from before secrets
 * were encrypted) under the box's current key. Returns how many values it sealed; cheap when
 * there are none (one query). Run at start-up (scripts/prepare.ts) and by the worker once per
 * process (run-due-work.ts), so an upgraded deployment stores no plaintext for long.
 */
export async function sealLegacySecrets(db: Queryable, box: SecretBox): Promise<number> {
  const plaintext = or(
    notLike(webhookEndpoints.secret, 'enc:%'),
    notLike(webhookEndpoints.previousSecret, 'enc:%'),
  );
  let sealed = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let lost = 0;
    await eachEndpoint(db, plaintext as SQL, async (row) => {
      for (const [column, value] of valuesOf(row)) {
        if (value.startsWith('enc:')) continue; // as the query reads it: sealed, in any format
        if (await replaceValue(db, row.id, column, value, box.seal(value))) sealed++;
        else lost++;
      }
    });
    if (lost === 0) break;
  }
  return sealed;
}

export interface ResealResult {
  /** Plaintext values (from before encryption) now sealed under the current key. */
  sealed: number;
  /** Values sealed under another key, now sealed under the current key. */
  resealed: number;
  /** Values no configured key opens (or that were altered): left as they were. */
  unreadable: { endpointId: string; column: Column; error: string }[];
  /**
   * Values still not under the current key after the pass: the unreadable ones, and any that
   * were written meanwhile by an instance whose SECRETS_KEY is another key.
   */
  remaining: number;
}

/** Endpoints holding a value that is not sealed under the box's current key. */
function notCurrent(box: SecretBox): SQL {
  const current = `enc:v1:${box.currentKeyId}:%`;
  return or(
    notLike(webhookEndpoints.secret, current),
    notLike(webhookEndpoints.previousSecret, current),
  ) as SQL;
}

/**
 * Re-seals every stored secret that is not sealed under the box's current key (key rotation,
 * scripts/rotate-secrets-key.ts): opened with whichever configured key it names, sealed under
 * the current one. Afterwards only the current key is needed, if `remaining` is 0.
 */
export async function resealSecrets(db: Queryable, box: SecretBox): Promise<ResealResult> {
  const result: ResealResult = { sealed: 0, resealed: 0, unreadable: [], remaining: 0 };
  const unreadable = new Map<string, ResealResult['unreadable'][number]>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let lost = 0;
    await eachEndpoint(db, notCurrent(box), async (row) => {
      for (const [column, value] of valuesOf(row)) {
        if (box.isCurrent(value)) continue;
        let plaintext: string;
        try {
          plaintext = box.open(value);
        } catch (err) {
          unreadable.set(`${row.id}:${column}`, {
            endpointId: row.id,
            column,
            error: (err as Error).message,
          });
          continue;
        }
        if (!(await replaceValue(db, row.id, column, value, box.seal(plaintext)))) lost++;
        else if (isSealed(value)) result.resealed++;
        else result.sealed++;
      }
    });
    if (lost === 0) break;
  }
  result.unreadable = [...unreadable.values()];
  await eachEndpoint(db, notCurrent(box), async (row) => {
    for (const [, value] of valuesOf(row)) if (!box.isCurrent(value)) result.remaining++;
  });
  return result;
}
