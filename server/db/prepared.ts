import type { Queryable } from './client';

/**
 * A statement built once per database handle, from `build` (which ends in drizzle's
 * `.prepare(name)`): drizzle writes its SQL once, and PostgreSQL plans it once per connection
 * where the connection keeps prepared statements (not behind a transaction-mode pooler, where
 * postgres.js is told not to prepare). For a statement whose shape never changes and that runs
 * on most requests (docs/performance.md, "A note's read prepared").
 */
export function preparedPerDatabase<T>(build: (db: Queryable) => T): (db: Queryable) => T {
  const built = new WeakMap<Queryable, T>();
  return (db) => {
    let statement = built.get(db);
    if (!statement) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}
