// The bounds the OpenAPI documents write into their schemas, each one a bound the service keeps
// (docs/rules.md#limits-on-input and what storage guarantees). A response field is bounded by the
// input check that let its value in; where the service keeps no bound of its own, the smallest
// true statement is written and says why. No imports: form profiles (read by Next's proxy and the
// browser) use these too.

/** The cap on a /v1 request body (413 beyond). */
export const V1_MAX_BODY_BYTES = 64 * 1024;

/** A 32-bit integer column (PostgreSQL `integer`): durations, limits, counts. */
export const INT32_MAX = 2_147_483_647;

/** A UUID as the service writes and reads it: 8-4-4-4-12 hexadecimal digits. */
export const UUID_LENGTH = 36;

/**
 * A timestamp the API writes: toISOString() of an instant between 0100 and 9999 (the years the
 * database stores), always `YYYY-MM-DDTHH:mm:ss.sssZ`.
 */
export const API_TIMESTAMP_LENGTH = 24;
export const API_TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

/**
 * The service sets no length of its own on some query values (a date-time may carry any number
 * of fractional digits; Form B's q has no limit): the bound is the HTTP server's. Node's parser
 * answers 431 to a request whose request line and headers pass 16 KiB, so no query value is
 * longer (every character takes at least one byte of the request line).
 */
export const MAX_QUERY_VALUE_LENGTH = 16 * 1024;

/**
 * The recorder API's body cap (8 MiB): a string that only the recorder writes (a segment's
 * speaker and content) came in one such body, and a character takes at least one byte of it.
 */
export const RECORDER_TEXT_MAX_LENGTH = 8 * 1024 * 1024;

/**
 * The service keeps no bound of its own on text a language model writes (a summary's fields) or
 * on its own messages, which may quote input: the bound is the answer itself. Every answer is
 * serialised to one JavaScript string, which V8 caps at 2^29 − 24 UTF-16 code units, and no
 * string inside it, counted in characters, is longer.
 */
export const MAX_ANSWER_STRING_LENGTH = 2 ** 29 - 24;

/** In that same answer every array item takes at least one character and a separator. */
export const MAX_ANSWER_ARRAY_ITEMS = Math.floor(MAX_ANSWER_STRING_LENGTH / 2);

/** Titles: the recorder refuses a title longer than 500 characters. */
export const TITLE_MAX_LENGTH = 500;

/** Languages: the recorder accepts 2 to 35 characters (after trimming); the default is "en". */
export const LANGUAGE_MIN_LENGTH = 2;
export const LANGUAGE_MAX_LENGTH = 35;

/** Transcripts: the recorder accepts 1 to 10,000 segments, stored once. */
export const MAX_TRANSCRIPT_SEGMENTS = 10_000;

/** An account has at most 25 webhook endpoints. */
export const MAX_WEBHOOK_ENDPOINTS = 25;

/**
 * Unix seconds of a rate-limit window's end: its start is stored like every timestamp (by
 * 9999-12-31), so it ends at 10000-01-01T00:00:00Z at the latest.
 */
export const MAX_UNIX_SECONDS = 253_402_300_800;

/** Retry-After: whole seconds until a window resets; the longest window is a UTC day. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;
