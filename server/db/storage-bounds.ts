// What the database stores as given. Values beyond these are refused as validation errors at the
// edge (docs/rules.md#limits-on-input), never left to fail in a query.

/**
 * Instants: years 0100 to 9999 in UTC. After 9999 toISOString() writes a 6-digit year, which the
 * API's timestamp format does not allow; before year 1 PostgreSQL has no year 0. Years 0001-0099
 * would be stored but read back wrong: drizzle turns PostgreSQL's "0001-01-01 00:00:00+00" into a
 * Date with `new Date(text)`, and V8 reads a year below 100 in that (non-ISO) form as 1950-2049.
 * So those are refused too.
 */
export const EARLIEST_TIMESTAMP_MS = Date.parse('0100-01-01T00:00:00.000Z');
export const LATEST_TIMESTAMP_MS = Date.parse('9999-12-31T23:59:59.999Z');
export const TIMESTAMP_RANGE_TEXT = '0100-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';

export const inTimestampRange = (ms: number) => ms >= EARLIEST_TIMESTAMP_MS && ms <= LATEST_TIMESTAMP_MS;

/** The longest duration stored, in seconds: 2^31 − 1 (about 68 years), an integer column. */
export const MAX_DURATION_SECONDS = 2_147_483_647;

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text stored as given: no NUL (text and jsonb refuse it) and no unpaired surrogate (jsonb refuses it). */
export const isStorableText = (text: string) => !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text);
