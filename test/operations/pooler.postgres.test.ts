import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type PoolMode, queryRows } from '../../server/db/client';
import { type PgBouncer, startPgBouncer } from '../support/pgbouncer';
import { postgresServerUrl } from '../support/test-database';

// The service's PostgreSQL client behind a real transaction-mode pooler (PgBouncer, without
// prepared statements across transactions, as Supavisor's and older PgBouncers are). The whole
// service behind one, three instances of it: e2e/pooler.api.spec.ts.

const serverUrl = postgresServerUrl();
const databaseName = `mn_pooler_${randomBytes(6).toString('hex')}`;
let bouncer: PgBouncer;

beforeAll(async () => {
  const server = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await server.unsafe(`create database ${databaseName}`);
  await server.end();
  bouncer = await startPgBouncer({ serverUrl, database: databaseName, maxClientConnections: 20 });
});

afterAll(async () => {
  await bouncer?.stop();
  const server = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await server.unsafe(`drop database if exists ${databaseName} with (force)`);
  await server.end();
});

/**
 * Two transactions of one client connection, the second made to run in another server session:
 * the session the first ran in is held by another client meanwhile. The rows committed, in order.
 */
async function twoTransactionsAcrossSessions(poolMode: PoolMode, table: string): Promise<number[]> {
  const database = await openPostgres(bouncer.url, { max: 1, poolMode });
  const other = postgres(bouncer.url, { max: 1, prepare: false, onnotice: () => {} });
  try {
    await database.db.execute(sql.raw(`create table ${table} (v int)`));
    const first = await database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`insert into ${table} values (1)`));
      return (await queryRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`))[0]?.pid;
    });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding: Promise<unknown> = Promise.resolve();
    const heldPid = await new Promise<number | undefined>((resolve, reject) => {
      holding = other
        .begin(async (tx) => {
          resolve((await tx`select pg_backend_pid() as pid`)[0]?.pid as number | undefined);
          await released;
        })
        .catch(reject);
    });
    // PgBouncer hands the session it last released to the next client that asks.
    expect(heldPid).toBe(first);
    try {
      await database.db.transaction(async (tx) => {
        await tx.execute(sql.raw(`insert into ${table} values (2)`));
      });
    } finally {
      release();
      await holding;
    }
    return (await other.unsafe(`select v from ${table} order by v`)).map((r) => Number(r.v));
  } finally {
    await database.close();
    await other.end();
  }
}

// A pooler stands in front of a PostgreSQL server; the embedded PGlite database is a library in
// this process, with nothing to pool: on PGlite these are skipped, not passed.
describe('the PostgreSQL client behind a transaction-mode pooler', () => {
  it('with DATABASE_POOL_MODE=transaction a transaction that commits is committed, in whichever server session the pooler runs it', async () => {
    expect(await twoTransactionsAcrossSessions('transaction', 'kept')).toEqual([1, 2]);
  });

  it('why it must be declared: with prepared statements (the default) the second transaction resolves yet is rolled back', async () => {
    // postgres.js prepares its COMMIT as a named statement in the first session; in the second
    // the name is unknown, which aborts the transaction, and postgres.js, preparing it again,
    // sends COMMIT to an aborted transaction: PostgreSQL answers ROLLBACK, without an error.
    expect(await twoTransactionsAcrossSessions('session', 'lost')).toEqual([1]);
  });
});
