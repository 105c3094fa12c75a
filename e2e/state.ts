import fs from 'node:fs';
import path from 'node:path';

export const STATE_DIR = path.join(import.meta.dirname, '.state');

export interface E2eState {
  database: 'pglite' | 'postgres';
  dataDir?: string;
  databaseUrl?: string;
  /** Where the server's stdout goes, so tests can read what `npm start` printed. */
  serverLog: string;
  /** Accounts made with the admin CLI before the server started (PostgreSQL is never seeded). */
  accounts: { main?: { api_key: string } };
}

export function readState(): E2eState {
  return JSON.parse(fs.readFileSync(path.join(STATE_DIR, 'state.json'), 'utf8')) as E2eState;
}
