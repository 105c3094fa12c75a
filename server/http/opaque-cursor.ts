import { isUuid } from '../domain';
import { inTimestampRange } from '../db/storage-bounds';

// An opaque keyset cursor: base64url of "<created_at ms>:<id>", the sort key of the last item on a
// page. Form A's note cursor and the delivery log's.

/** The cursors decodeCursor reads (it writes at most 70 characters); longer ones are malformed. */
export const CURSOR_MAX_LENGTH = 200;
export const CURSOR_PATTERN = `^[A-Za-z0-9_-]{1,${CURSOR_MAX_LENGTH}}$`;
const CURSOR_SHAPE = new RegExp(CURSOR_PATTERN);

export function encodeCursor(position: { createdAt: Date; id: string }): string {
  return Buffer.from(`${position.createdAt.getTime()}:${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } | null {
  if (!CURSOR_SHAPE.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,15}):(.+)$/.exec(text);
  const [, ms, id] = match ?? [];
  if (ms === undefined || id === undefined || !isUuid(id)) return null;
  const createdAt = new Date(Number(ms));
  // A forged position past year 9999 would reach the database as a 6-digit year.
  if (!inTimestampRange(createdAt.getTime())) return null;
  return { createdAt, id: id.toLowerCase() };
}
