import { getEnv } from './env';

// Logs go to stderr as one JSON object a line, so stdout stays free for CLI output.
type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const MAX_STACK_FRAMES = 12;
const MAX_CAUSES = 3;

/** A PostgreSQL error as PGlite (DatabaseError: table, …) and postgres.js (PostgresError: table_name, …) report it. */
type DatabaseErrorLike = Error & { code: string; severity: string } & Partial<
    Record<(typeof NAMED_FIELDS)[number][number], string>
  >;

/** The fields of a database error that name things rather than hold values, under each driver's name. */
const NAMED_FIELDS = [
  ['table', 'table_name'],
  ['column', 'column_name'],
  ['constraint', 'constraint_name'],
  ['routine', 'routine'],
] as const;

function isDatabaseError(err: Error): err is DatabaseErrorLike {
  const e = err as Partial<DatabaseErrorLike>;
  return typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}

/** drizzle-orm's DrizzleQueryError: its message is the SQL followed by every parameter. */
function isDrizzleQueryError(err: Error): err is Error & { query: string } {
  return (
    'params' in err &&
    typeof (err as { query?: unknown }).query === 'string' &&
    err.message.startsWith('Failed query:')
  );
}

/** The frames of a stack, without its first line, which repeats the message. */
function stackFrames(err: Error): string | undefined {
  const frames = err.stack
    ?.split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, MAX_STACK_FRAMES);
  return frames?.length ? frames.map((line) => line.trim()).join('\n') : undefined;
}

/**
 * An error as it may be logged, with no user content. Database errors carry values of
 * the query in their message ('invalid input syntax for type uuid: "…"'), detail ("Failing row
 * contains (…)"), and, under PGlite, the parameters; drizzle's wrapper puts every parameter,
 * transcript text and all, in its message. Kept: the SQL text (parameters are placeholders),
 * the SQLSTATE, the names of table, column and constraint, and the stack frames.
 */
export function describeError(err: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: err.name };
  if (isDrizzleQueryError(err)) {
    out.message = 'Failed query';
    out.query = err.query.length > 500 ? `${err.query.slice(0, 500)}…` : err.query;
  } else if (isDatabaseError(err)) {
    out.message = err.message.replace(/"[^"]*"/g, '"…"');
    out.code = err.code;
    out.severity = err.severity;
    for (const names of NAMED_FIELDS) {
      const value = names.map((name) => err[name]).find(Boolean);
      if (value) out[names[0]] = value;
    }
  } else if (err instanceof SyntaxError) {
    // JSON.parse quotes the text it could not read.
    out.message = err.message.replace(/"[^"]*"/g, '"…"');
  } else {
    out.message = err.message;
  }
  const stack = stackFrames(err);
  if (stack) out.stack = stack;
  if (err.cause instanceof Error && depth < MAX_CAUSES) out.cause = describeError(err.cause, depth + 1);
  return out;
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}) {
  if (ORDER[level] < ORDER[getEnv().LOG_LEVEL]) return;
  const entry: Record<string, unknown> = { level, time: new Date().toISOString(), msg: message };
  for (const [k, v] of Object.entries(fields)) {
    entry[k] = v instanceof Error ? describeError(v) : v;
  }
  process.stderr.write(`${JSON.stringify(entry)}\n`);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
