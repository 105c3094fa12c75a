import { tracingEnabled, withSpan } from '../telemetry/tracing';

// SQL spans, made where drizzle hands a statement to the driver: PGlite's query() and
// transaction(), postgres.js's unsafe() and begin(). drizzle has no tracing of its own. A span
// names the statement's operation and tables, never its text's values or its parameters, and is
// made only inside a trace (a request, a job, a webhook attempt): the worker's polling is not
// traced. Without tracing the driver's client is used as it is, untouched.

const DB_SYSTEM = { 'db.system.name': 'postgresql' } as const;

export interface StatementSummary {
  operation: string;
  /** The table the operation reads (SELECT) or writes; undefined when none is named. */
  collection: string | undefined;
  /** Every table the statement names, in order. */
  tables: string[];
}

const KEYWORD =
  /^(select|insert|update|delete|with|begin|commit|rollback|savepoint|release|set|create|alter|drop|truncate|lock|copy|values|explain|analyze|vacuum|show|do)\b/i;
const DML = /\b(insert\s+into|update|delete\s+from|select)\b/gi;
const TABLE_AFTER =
  /\b(from|join|into|update)\s+((?:"[^"]+"|[a-z_][a-z0-9_$]*)(?:\.(?:"[^"]+"|[a-z_][a-z0-9_$]*))?)(\s*\()?/gi;
const CTE_NAME =
  /(?:\bwith|,)\s*(?:recursive\s+)?("[^"]+"|[a-z_][a-z0-9_]*)\s+as\s+(?:(?:not\s+)?materialized\s+)?\(/gi;
const NOT_TABLES = new Set([
  'lateral',
  'only',
  'select',
  'unnest',
  'jsonb_to_recordset',
  'json_to_recordset',
]);

/** Row locks and upserts, whose `update` names no table. */
const NOT_A_TARGET = /\bfor\s+(?:no\s+key\s+)?update\b|\bfor\s+(?:key\s+)?share\b|\bdo\s+update\b/gi;
const IDENT = '((?:"[^"]+"|[a-z_][a-z0-9_$]*)(?:\\.(?:"[^"]+"|[a-z_][a-z0-9_$]*))?)';
const TARGET_OF: Record<string, RegExp> = {
  INSERT: new RegExp(`\\binsert\\s+into\\s+${IDENT}`, 'i'),
  UPDATE: new RegExp(`\\bupdate\\s+(?:only\\s+)?${IDENT}`, 'i'),
  DELETE: new RegExp(`\\bdelete\\s+from\\s+(?:only\\s+)?${IDENT}`, 'i'),
};

const summaries = new Map<string, StatementSummary>();
const SUMMARIES_MAX = 2000;

const unquote = (name: string) =>
  name
    .split('.')
    .map((part) => (part.startsWith('"') ? part.slice(1, -1) : part.toLowerCase()))
    .join('.');

/**
 * The operation and the tables of a statement, read from its text without its literals. For a
 * WITH statement the operation is the first that writes (the lease claims are `with … update`),
 * else SELECT.
 */
export function summarizeStatement(text: string): StatementSummary {
  const known = summaries.get(text);
  if (known) return known;
  const bare = text
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(NOT_A_TARGET, ' ')
    .trim();
  const first = KEYWORD.exec(bare)?.[1]?.toUpperCase() ?? 'OTHER';
  let operation = first;
  if (first === 'WITH') {
    const verbs = [...bare.matchAll(DML)].map((m) => (m[1] ?? '').split(/\s+/)[0]?.toUpperCase() ?? '');
    operation = verbs.find((v) => v !== 'SELECT') ?? 'SELECT';
  }
  const ctes = new Set([...bare.matchAll(CTE_NAME)].map((m) => unquote(m[1] ?? '')));
  const tables: string[] = [];
  for (const m of bare.matchAll(TABLE_AFTER)) {
    // `from f(…)` is a function; `into t (…)` a table and its columns.
    if (m[3] && /^(from|join)$/i.test(m[1] ?? '')) continue;
    const name = unquote(m[2] ?? '');
    if (!name || ctes.has(name) || NOT_TABLES.has(name) || tables.includes(name)) continue;
    tables.push(name);
  }
  const target = TARGET_OF[operation]?.exec(bare)?.[1];
  const collection = target ? unquote(target) : tables[0];
  const summary = { operation, collection, tables };
  if (summaries.size >= SUMMARIES_MAX) summaries.clear();
  summaries.set(text, summary);
  return summary;
}

function statementSpan<T>(text: string, run: () => Promise<T>): Promise<T> {
  const { operation, collection, tables } = summarizeStatement(text);
  // The operation's own table first, then the others it names (joins, subqueries), three at most.
  const named = [...new Set([...(collection ? [collection] : []), ...tables])].slice(0, 3).join(' ');
  const summary = named ? `${operation} ${named}` : operation;
  return withSpan(
    summary,
    {
      ...DB_SYSTEM,
      'db.operation.name': operation,
      ...(collection && { 'db.collection.name': collection }),
      'db.query.summary': summary,
    },
    () => run(),
    { kind: 'client', onlyInTrace: true },
  );
}

function transactionSpan<T>(run: () => Promise<T>): Promise<T> {
  return withSpan('transaction', { ...DB_SYSTEM }, () => run(), { kind: 'internal', onlyInTrace: true });
}

/** The object itself for every member but those named, with methods bound to it. */
export function overriding<T extends object>(target: T, members: Record<string, unknown>): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (typeof prop === 'string' && Object.hasOwn(members, prop)) return members[prop];
      const value = Reflect.get(t, prop, receiver === t ? t : receiver);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}

interface PgliteLike {
  query(text: string, ...rest: unknown[]): Promise<unknown>;
  transaction(fn: (tx: PgliteLike) => Promise<unknown>): Promise<unknown>;
}

/** PGlite's client with a span around each statement and transaction. */
export function tracePglite<T extends object>(client: T): T {
  if (!tracingEnabled()) return client;
  const wrap = (c: PgliteLike): PgliteLike =>
    overriding(c, {
      query: (text: string, ...rest: unknown[]) => statementSpan(text, () => c.query(text, ...rest)),
      transaction: (fn: (tx: PgliteLike) => Promise<unknown>) =>
        transactionSpan(() => c.transaction((tx) => fn(wrap(tx)))),
    });
  return wrap(client as unknown as PgliteLike) as unknown as T;
}

interface PendingLike extends PromiseLike<unknown> {
  values(): PendingLike;
}
interface PostgresLike {
  unsafe(text: string, ...rest: unknown[]): PendingLike;
  begin(fn: (sql: PostgresLike) => Promise<unknown>): Promise<unknown>;
  savepoint(fn: (sql: PostgresLike) => Promise<unknown>): Promise<unknown>;
}

/**
 * postgres.js's client with a span around each statement and transaction. Its queries run when
 * awaited, so unsafe() hands back a stand-in whose then() runs the query inside the span (the
 * only other member drizzle uses is values()).
 */
export function tracePostgres<T extends object>(client: T): T {
  if (!tracingEnabled()) return client;
  const wrap = (c: PostgresLike): PostgresLike =>
    overriding(c, {
      unsafe(text: string, ...rest: unknown[]) {
        const pending = c.unsafe(text, ...rest);
        const standIn: PendingLike = {
          values() {
            pending.values();
            return standIn;
          },
          // biome-ignore lint/suspicious/noThenProperty: a thenable stand-in for postgres.js's lazy query
          then(onFulfilled, onRejected) {
            return statementSpan(text, async () => await pending).then(onFulfilled, onRejected);
          },
        };
        return standIn;
      },
      begin: (fn: (sql: PostgresLike) => Promise<unknown>) =>
        transactionSpan(() => c.begin((sql) => fn(wrap(sql)))),
      savepoint: (fn: (sql: PostgresLike) => Promise<unknown>) => c.savepoint((sql) => fn(wrap(sql))),
    });
  return wrap(client as unknown as PostgresLike) as unknown as T;
}
