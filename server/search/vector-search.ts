import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client';

/** The dimension of a vector column (pgvector keeps it as the column's typmod). */
export async function columnDimensions(
  db: Db,
  table: 'passages' | 'meetings',
  column: 'embedding' | 'summary_embedding',
): Promise<number> {
  const [row] = await queryRows<{ dims: number }>(
    db,
    sql`select atttypmod as dims from pg_attribute where attrelid = ${table}::regclass and attname = ${column} and not attisdropped`,
  );
  return Number(row?.dims);
}

/** pgvector's text form of a vector, for a query parameter. */
export const toVectorLiteral = (v: number[]) => `[${v.join(',')}]`;

/**
 * HNSW candidate list (at least the number of rows asked for): the lowest value whose recall@10
 * against exact search stayed clear of 0.97 on bench:search's large account
 * (docs/performance.md#hnsw-index-and-search-settings has the figures). Only accounts above
 * SEARCH_EXACT_MAX_ROWS take this path.
 */
export const HNSW_EF_SEARCH = 80;

/**
 * The HNSW path's settings, local to its transaction: iterative scans (pgvector 0.8) that keep
 * walking the graph until enough rows pass the account filter, the candidate list, and no sort.
 * Without the last, the planner's costs at 768 dimensions and a long candidate list chose the
 * account's rows through the btree and a sort of all of them (the exact search, several times
 * slower on a large account: docs/performance.md#hnsw-index-and-search-settings) on exactly the
 * accounts this path exists for.
 * (The outer sort of the `limit` rows found is still done: it has no alternative.)
 */
export const hnswSettings = (efSearch: number): string[] => {
  if (!Number.isInteger(efSearch) || efSearch < 1) throw new Error(`Bad hnsw.ef_search: ${efSearch}`);
  // One statement (set_config(…, true) is SET LOCAL), not three: each round trip inside the
  // search's transaction is on its latency.
  return [
    `select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '${efSearch}', true), set_config('enable_sort', 'off', true)`,
  ];
};

export interface VectorSearchSpec {
  /** Selects `id` and `distance` (embedding <=> query) and whatever else the caller needs. */
  select: SQL;
  /** FROM … WHERE …: the account's candidate rows. */
  from: SQL;
  /** The indexed expression, e.g. sql`p.embedding <=> ${q}::vector`. */
  distance: SQL;
  limit: number;
  /**
   * At most this many candidate rows, an account is searched exactly (its rows through the
   * btree on account_id, every distance computed): complete and fast. Above it the HNSW index
   * with iterative scans (pgvector 0.8) keeps latency flat as an account grows.
   */
  exactMaxRows: number;
}

/**
 * Top `limit` rows by cosine distance among the account's candidates. An account always gets
 * up to `limit` results when it has that many candidates, however many rows other accounts
 * hold: small accounts are searched exactly; large ones through HNSW with iterative
 * scans, which keep scanning the graph until enough rows pass the account filter.
 */
export async function vectorSearch<T extends Record<string, unknown>>(
  db: Db,
  spec: VectorSearchSpec,
): Promise<T[]> {
  const [count] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from (select 1 ${spec.from} limit ${spec.exactMaxRows + 1}) s`,
  );
  if (Number(count?.n ?? 0) <= spec.exactMaxRows) return exactSearch<T>(db, spec);
  const indexed = await db.transaction(async (tx) => {
    for (const setting of hnswSettings(Math.max(HNSW_EF_SEARCH, spec.limit)))
      await tx.execute(sql.raw(setting));
    // relaxed_order may return rows slightly out of order: the outer query sorts them again.
    return queryRows<T>(
      tx,
      sql`select * from (select ${spec.select} ${spec.from} order by ${spec.distance} limit ${spec.limit}) s order by distance, id`,
    );
  });
  // Iterative scans stop after hnsw.max_scan_tuples: an account whose rows are rare in a huge
  // index can still come up short. It has at least `limit` candidates, so the exact scan answers.
  return indexed.length >= spec.limit ? indexed : exactSearch<T>(db, spec);
}

function exactSearch<T extends Record<string, unknown>>(db: Db, spec: VectorSearchSpec): Promise<T[]> {
  // OFFSET 0 fences the subquery, so the planner cannot swap the exact scan for the index.
  return queryRows<T>(
    db,
    sql`select * from (select ${spec.select} ${spec.from} offset 0) s order by distance, id limit ${spec.limit}`,
  );
}
