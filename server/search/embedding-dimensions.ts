import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';

/** The dimension of the database's vector columns (pgvector keeps it as the column's typmod). */
export async function storedDimensions(db: Queryable): Promise<number> {
  const [row] = await queryRows<{ dims: number }>(
    db,
    sql`select atttypmod as dims from pg_attribute where attrelid = 'passages'::regclass and attname = 'embedding'`,
  );
  return Number(row?.dims);
}

export class DimensionMismatchError extends Error {
  constructor(stored: number, configured: number) {
    super(
      `The database stores ${stored}-dimensional vectors but the configured embedder makes ${configured} ` +
        `(EMBEDDINGS_PROVIDER, EMBEDDINGS_DIMENSIONS). Run \`npm run reindex\` with this configuration to re-embed ` +
        `everything (on PostgreSQL a server on the old configuration keeps answering meanwhile), or set ` +
        `EMBEDDINGS_DIMENSIONS=${stored} and the provider those vectors came from (before the default became semantic, it was EMBEDDINGS_PROVIDER=local).`,
    );
    this.name = 'DimensionMismatchError';
  }
}

/**
 * Start-up check. A database without any vector yet (fresh from the migrations, whose columns
 * are 384-dimensional, or seeded with the semantic embedder's jobs still queued) is moved to the
 * configured dimension, as nothing is lost; one holding vectors of another length needs reindex.
 */
export async function assertDimensions(db: Queryable, configured: number): Promise<void> {
  if (!(await adoptDimensionsIfEmpty(db, configured)))
    throw new DimensionMismatchError(await storedDimensions(db), configured);
}

export async function hasAnyVector(db: Queryable): Promise<boolean> {
  const [row] = await queryRows<{ any: boolean }>(
    db,
    sql`select exists (select 1 from passages where embedding is not null)
            or exists (select 1 from meetings where summary_embedding is not null) as any`,
  );
  return !!row?.any;
}

/** The key of the advisory lock under which the vector columns are moved to another dimension. */
export const ADOPT_DIMENSIONS_LOCK = 727465002;

/**
 * A fresh database (the migrations create 384-dimensional columns) or one whose vectors are all
 * still to be made: moves its columns to the configured dimension, as nothing is lost. Returns
 * false when vectors of another dimension are stored (then `npm run reindex` is needed).
 *
 * Instances starting at once on a fresh database all find it to move: under a lock, one moves it
 * and the others then find it moved (two `create index if not exists` of one name at once fail).
 * The lock is transaction-scoped, so it also holds through a transaction-mode pooler.
 */
export async function adoptDimensionsIfEmpty(db: Queryable, dims: number): Promise<boolean> {
  if ((await storedDimensions(db)) === dims) return true;
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`select pg_advisory_xact_lock(${ADOPT_DIMENSIONS_LOCK})`));
    if ((await storedDimensions(tx)) === dims) return true;
    if (await hasAnyVector(tx)) return false;
    await changeDimensions(tx, dims);
    await ensureVectorIndexes(tx);
    return true;
  });
}

/**
 * Moves the vector columns to another dimension. The old vectors cannot be kept (they are of the
 * old length), so they are cleared; reindex then fills them in again, resumably.
 */
export async function changeDimensions(db: Queryable, dims: number): Promise<void> {
  await db.execute(sql.raw('drop index if exists passages_embedding_hnsw'));
  await db.execute(sql.raw('drop index if exists meetings_summary_embedding_hnsw'));
  await db.execute(sql.raw(`alter table passages alter column embedding type vector(${dims}) using null`));
  await db.execute(
    sql.raw(`alter table meetings alter column summary_embedding type vector(${dims}) using null`),
  );
  await db.execute(
    sql.raw('update meetings set summary_embedding_model = null where summary_embedding_model is not null'),
  );
}

/**
 * How every HNSW index is built (migration 0009): denser than pgvector's defaults (m 16,
 * ef_construction 64), for better recall at the same ef_search in exchange for a slower build
 * (bench:search; docs/performance.md#hnsw-index-and-search-settings has the figures).
 */
export const HNSW_BUILD = 'with (m = 24, ef_construction = 128)';

/** The HNSW indexes of the migrations (dropped by changeDimensions, rebuilt after the reindex). */
export async function ensureVectorIndexes(db: Queryable): Promise<void> {
  await db.execute(
    sql.raw(
      `create index if not exists passages_embedding_hnsw on passages using hnsw (embedding vector_cosine_ops) ${HNSW_BUILD}`,
    ),
  );
  await db.execute(
    sql.raw(
      `create index if not exists meetings_summary_embedding_hnsw on meetings using hnsw (summary_embedding vector_cosine_ops) ${HNSW_BUILD}`,
    ),
  );
}
