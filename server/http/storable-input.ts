import { TRPCError } from '@trpc/server';
import { isStorableText } from '../db/storage-bounds';
import { AppError } from '../errors';

// PostgreSQL's text refuses NUL and its jsonb refuses unpaired surrogates too; a string like that
// reaching a query is a 500. Every procedure's raw input is checked before its schema sees it, so
// a field added later is covered without anyone remembering to: the settings app's tRPC in a
// middleware, /v1 and the recorder in their dispatcher (openapi-dispatch.ts), which is the only
// way their procedures are called.

/** Messages cut path segments longer than this, and paths deeper: a client chooses both. */
const MAX_SEGMENT_IN_MESSAGE = 64;
const MAX_SEGMENTS_IN_MESSAGE = 20;

const shown = (segment: string | number) => {
  const text = String(segment);
  return text.length > MAX_SEGMENT_IN_MESSAGE ? `${text.slice(0, MAX_SEGMENT_IN_MESSAGE)}…` : text;
};

/**
 * The first string in `value` (an object key or a string value, in document order) that PostgreSQL
 * would refuse, as the path to it and whether it is a key; null when every string is storable.
 * The walk keeps its own stack, so a deeply nested body cannot overflow the call stack.
 */
export function firstUnstorableText(value: unknown): { path: (string | number)[]; key: boolean } | null {
  // Each entry links to its parent, so a path is built only for the string refused: copying it
  // per entry would cost the square of the depth.
  type Entry = { value: unknown; segment: string | number; parent: Entry | null };
  const pathOf = (entry: Entry | null) => {
    const path: (string | number)[] = [];
    for (let e = entry; e?.parent; e = e.parent) path.push(e.segment);
    return path.reverse();
  };
  const stack: Entry[] = [{ value, segment: '', parent: null }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const item = entry.value;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return { path: pathOf(entry), key: false };
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], segment: i, parent: entry });
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (const [name] of entries) if (!isStorableText(name)) return { path: pathOf(entry), key: true };
      for (const [name, child] of entries.reverse())
        stack.push({ value: child, segment: name, parent: entry });
    }
  }
  return null;
}

/** The 400 for an input holding such a string, naming the field (e.g. `segments.3.content`). */
export function unstorableInputError(value: unknown): TRPCError | null {
  const found = firstUnstorableText(value);
  if (!found) return null;
  const half = MAX_SEGMENTS_IN_MESSAGE / 2;
  const path =
    found.path.length > MAX_SEGMENTS_IN_MESSAGE
      ? [...found.path.slice(0, half), '…', ...found.path.slice(-half)]
      : found.path;
  const where = path.map(shown).join('.');
  const message = found.key
    ? `${where ? `A field name in ${where}` : 'A field name'} must not contain NUL characters or unpaired surrogates`
    : `${where || 'The input'} must not contain NUL characters or unpaired surrogates`;
  const cause = new AppError('invalid_request', message);
  return new TRPCError({ code: 'BAD_REQUEST', message, cause });
}

/**
 * The raw input of a procedure call, checked. An input that cannot be read at all is left to the
 * procedure, which answers it as it always has (a procedure without input never reads it).
 */
export async function refuseUnstorableInput(getRawInput: () => Promise<unknown>): Promise<void> {
  let raw: unknown;
  try {
    raw = await getRawInput();
  } catch {
    return;
  }
  const error = unstorableInputError(raw);
  if (error) throw error;
}
