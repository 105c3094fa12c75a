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
      `The database stores ${stored}-dimensional vectors but EMBEDDINGS_DIMENSIONS is ${configured}. ` +
        `Run \`npm run reindex\` to move the database to ${configured} dimensions, or set EMBEDDINGS_DIMENSIONS=${stored}.`,
    );
    this.name = 'DimensionMismatchError';
  }
}

export async function assertDimensions(db: Queryable, configured: number): Promise<void> {
  const stored = await storedDimensions(db);
  if (stored !== configured) throw new DimensionMismatchError(stored, configured);
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
  await db.execute(sql.raw('update meetings set summary_embedding_model = null where summary_embedding_model is not null'));
}

/** The HNSW indexes of the migrations (dropped by changeDimensions, rebuilt after the reindex). */
export async function ensureVectorIndexes(db: Queryable): Promise<void> {
  await db.execute(sql.raw('create index if not exists passages_embedding_hnsw on passages using hnsw (embedding vector_cosine_ops)'));
  await db.execute(
    sql.raw('create index if not exists meetings_summary_embedding_hnsw on meetings using hnsw (summary_embedding vector_cosine_ops)'),
  );
}
