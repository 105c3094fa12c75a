import { getEnv } from './env';

// Logs go to stderr as one JSON object a line, so stdout stays free for CLI output.
type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

function write(level: Level, message: string, fields: Record<string, unknown> = {}) {
  if (ORDER[level] < ORDER[getEnv().LOG_LEVEL]) return;
  const entry: Record<string, unknown> = { level, time: new Date().toISOString(), msg: message };
  for (const [k, v] of Object.entries(fields)) {
    entry[k] = v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v;
  }
  process.stderr.write(`${JSON.stringify(entry)}\n`);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
