import { isUuid } from '../domain';
import { inTimestampRange } from '../db/storage-bounds';

// An opaque keyset cursor: base64url of "<created_at ms>:<id>", the sort key of the last item on a
// page. Form A's note cursor and the delivery log's.

export function encodeCursor(position: { createdAt: Date; id: string }): string {
  return Buffer.from(`${position.createdAt.getTime()}:${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,15}):(.+)$/.exec(text);
  const [, ms, id] = match ?? [];
  if (ms === undefined || id === undefined || !isUuid(id)) return null;
  const createdAt = new Date(Number(ms));
  // A forged position past year 9999 would reach the database as a 6-digit year.
  if (!inTimestampRange(createdAt.getTime())) return null;
  return { createdAt, id: id.toLowerCase() };
}
