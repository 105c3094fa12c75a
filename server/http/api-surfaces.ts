// Where the two JSON APIs live and what every one of their responses carries, shared by their
// handlers and by Next's proxy (which answers for them when Next itself cannot, see
// malformed-path-response.ts).

import type { Database } from '../db/client';
import type { FormName } from '../domain';
import type { Services } from '../services';

/** What the JSON API handlers (/v1 and the recorder's) are built from. */
export interface ApiHandlerDeps {
  getDatabase(): Promise<Database>;
  services: Services;
  now?(): Date;
}

export const V1_PREFIX = '/v1';
export const RECORDER_PREFIX = '/api/recorder';
/**
 * The recorder's API writes its errors as Form A does, whatever its key's form: its contract with
 * the desktop recorder, which is why this is Form A by name and not DEFAULT_FORM (the form of a
 * new key).
 */
export const RECORDER_FORM = 'A' satisfies FormName;

/** API answers are per key and per moment: no browser or proxy may keep a copy. */
export const API_RESPONSE_HEADERS = { 'Cache-Control': 'no-store' } as const;
