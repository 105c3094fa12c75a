import { z } from 'zod';
import { inTimestampRange, TIMESTAMP_RANGE_TEXT } from '../db/storage-bounds';
import { CURSOR_MAX_LENGTH, CURSOR_PATTERN, decodeCursor } from './opaque-cursor';
import {
  API_TIMESTAMP_LENGTH,
  API_TIMESTAMP_PATTERN,
  INT32_MAX,
  MAX_QUERY_VALUE_LENGTH,
  UUID_LENGTH,
} from '../openapi-bounds';

// Building blocks for the forms' input schemas. How an issue maps to a status lives in
// zod-issues.ts: malformed values (wrong type, bad format) are 400, well-formed but
// unacceptable ones (out of range, not in the enum) are 422 in Form A (docs/rules.md#errors).

/**
 * A meta key for an input's default when the schema transforms its value: zod leaves
 * `default` out of such a schema's JSON Schema (it would describe the output), so the OpenAPI
 * document renames this key to `default` (openapi-document.ts).
 */
export const INPUT_DEFAULT = 'x-input-default';

/** A query integer is written in decimal digits (an optional minus sign first). */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * A query-string integer. Only decimal digits are an integer: `1e1`, `+5`, ` 5`, `5.0`, `0x10`
 * and an empty value are malformed (400), as are a repeated parameter and a non-integer; a
 * well-formed value outside `min`..`max` is a 422 (Form B 400). The document says `type: integer`
 * with the bounds and the default, and the digits-only rule as a `pattern` on the value's text
 * (so `100.0` is refused by the document as by the service). A preprocess is a pipe, which
 * trpc-to-openapi does not coerce, so the raw string reaches it.
 */
export const integerParam = (name: string, min: number, max: number, fallback: number, description: string) =>
  z
    .preprocess(
      (value, ctx) => {
        if (typeof value === 'number') return value;
        if (typeof value === 'string' && DECIMAL_INTEGER.test(value)) return Number(value);
        ctx.addIssue({
          code: 'invalid_type',
          expected: 'int',
          input: value,
          message: `${name} must be an integer`,
        });
        return z.NEVER;
      },
      z
        .number({ error: `${name} must be an integer` })
        .int({ error: `${name} must be an integer` })
        .min(min, { error: `${name} must be between ${min} and ${max}` })
        .max(max, { error: `${name} must be between ${min} and ${max}` })
        .meta({
          description,
          default: fallback,
          format: Math.max(Math.abs(min), Math.abs(max)) <= INT32_MAX ? 'int32' : 'int64',
          pattern: DECIMAL_INTEGER.source,
        }),
    )
    .meta({ description })
    .optional();

/** A page size: 1 to `max`, `fallback` when absent. */
export const limitParam = (max: number, fallback: number) =>
  integerParam('limit', 1, max, fallback, `Page size, 1 to ${max} (default ${fallback}).`);

/**
 * ISO 8601 date-time with Z or an offset, whose instant lies in the range the database stores
 * (storage-bounds.ts). A value that does not parse is malformed (400); a well-formed one outside
 * the range is a 422 (docs/rules.md#time).
 */
export const isoDateTime = (name: string) =>
  z.iso
    .datetime({
      offset: true,
      error: `${name} must be an ISO 8601 date-time with Z or an offset, e.g. 2026-01-31T09:00:00Z`,
    })
    .refine((v) => inTimestampRange(Date.parse(v)), {
      error: `${name} must be between ${TIMESTAMP_RANGE_TEXT}`,
    });

/** A timestamp the API writes (toISOString: UTC, milliseconds), as `format: date-time`. */
export const apiTimestamp = (what: string) =>
  z.iso.datetime().meta({
    description: `${what}: ISO 8601, UTC, millisecond precision.`,
    minLength: API_TIMESTAMP_LENGTH,
    maxLength: API_TIMESTAMP_LENGTH,
    pattern: API_TIMESTAMP_PATTERN,
  });

/**
 * A date-time query parameter. The service allows any number of fractional digits, so its only
 * length bound is the request's (MAX_QUERY_VALUE_LENGTH).
 */
export const dateTimeParam = (name: string, description: string) =>
  isoDateTime(name).meta({ description, maxLength: MAX_QUERY_VALUE_LENGTH }).optional();

/** A UUID in a path; any 8-4-4-4-12 hex string is well-formed, the rest is a 400. */
export const uuidPathParam = z
  .guid({ error: 'id must be a UUID' })
  .meta({ description: 'The UUID of the resource.', minLength: UUID_LENGTH, maxLength: UUID_LENGTH });

/** Marks a custom issue as malformed input (400) rather than the 422 a refinement defaults to. */
export const MALFORMED = { status: 400 } as const;

/** A required text parameter: missing, or empty after trimming, is a 400. */
export const requiredText = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .refine((v) => v.length > 0, { error: `${name} is required`, params: MALFORMED });

/**
 * trpc-to-openapi coerces the number and boolean fields of every input, JSON bodies included
 * ("5" → 5, "false" → true). In a body that hides type errors (a 400), so body fields are wrapped:
 * it does not look inside a pipe.
 */
export const noCoerce = <T extends z.ZodType>(schema: T) => schema.pipe(z.custom<z.output<T>>(() => true));

/**
 * An enum parameter: a missing or non-string value is malformed (400), a string outside the
 * enum is well-formed but unacceptable (422). z.enum alone reports both as invalid_value.
 */
export const enumParam = <const V extends readonly [string, ...string[]]>(values: V, name: string) =>
  z.preprocess(
    (value, ctx) => {
      if (typeof value === 'string') return value;
      ctx.addIssue({
        code: 'invalid_type',
        expected: 'string',
        input: value,
        message: value === undefined ? `${name} is required` : `${name} must be a string`,
      });
      return z.NEVER;
    },
    z.enum(values, { error: `${name} must be one of ${values.join(', ')}` }),
  );

/**
 * The created_after / created_before pair of a list: parsed, and created_after later than
 * created_before reported as a 422 (Form B 400). Whether the upper bound is inclusive is the
 * form's (docs/rules.md#paging-through-notes). Returns null after reporting the issue.
 */
export function createdRange(
  input: { created_after?: string | undefined; created_before?: string | undefined },
  ctx: z.RefinementCtx,
  beforeInclusive: boolean,
): { createdFrom?: Date; createdBefore?: { at: Date; inclusive: boolean } } | null {
  const from = input.created_after ? new Date(input.created_after) : undefined;
  const before = input.created_before ? new Date(input.created_before) : undefined;
  if (from && before && from > before) {
    ctx.addIssue({
      code: 'custom',
      path: ['created_after'],
      message: 'created_after must not be later than created_before',
    });
    return null;
  }
  return {
    ...(from && { createdFrom: from }),
    ...(before && { createdBefore: { at: before, inclusive: beforeInclusive } }),
  };
}

/** An optional text parameter: when given, not blank after trimming (400). */
export const optionalText = (name: string, description: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .refine((v) => v.length > 0, { error: `${name} must not be blank`, params: MALFORMED })
    .meta({ description, minLength: 1, maxLength: MAX_QUERY_VALUE_LENGTH, pattern: '\\S' })
    .optional();

/** The `cursor` parameter of a page with an opaque cursor (./opaque-cursor.ts). */
export const opaqueCursorParam = z
  .string()
  .meta({
    description: 'The opaque next_cursor of the previous page.',
    maxLength: CURSOR_MAX_LENGTH,
    pattern: CURSOR_PATTERN,
  })
  .optional();

/** A page's `next_cursor` when it is opaque. */
export const opaqueNextCursor = z.string().nullable().meta({
  description: 'Opaque; pass as cursor for the next page. Null on the last page.',
  maxLength: CURSOR_MAX_LENGTH,
  pattern: CURSOR_PATTERN,
});

/** A page's `has_more`. */
export const hasMoreField = z.boolean().meta({ description: 'Whether a next page exists.' });

/**
 * The position an opaque cursor names; undefined without one. A cursor the service did not write
 * is reported as a 400 "cursor is malformed" and null returned.
 */
export function readOpaqueCursor(cursor: string | undefined, ctx: z.RefinementCtx) {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor);
  if (!position)
    ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'cursor is malformed', params: MALFORMED });
  return position;
}
