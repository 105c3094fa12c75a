import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../errors';
import { FORM_A_STATUS } from '../rest/form-a/errors';
import { FORM_B_STATUS } from '../rest/form-b/errors';
import { limitParam, MALFORMED, requiredText, uuidPathParam } from './params';
import { appErrorFromZodIssues } from './zod-issues';

/** The issues of a failed parse (fails the test when the value parses). */
function issuesOf(schema: z.ZodType, value: unknown): z.core.$ZodIssue[] {
  const result = schema.safeParse(value);
  expect(result.success).toBe(false);
  return result.error!.issues;
}

function mapped(schema: z.ZodType, value: unknown) {
  const issues = issuesOf(schema, value);
  const err = appErrorFromZodIssues(issues);
  expect(err).toBeInstanceOf(AppError);
  return { issues, err, statusA: FORM_A_STATUS[err.code], statusB: FORM_B_STATUS[err.code] };
}

const refined = (params?: Record<string, unknown>) =>
  z.object({
    q: z.string().refine((v) => v !== 'bad', { message: 'q is not acceptable', ...(params && { params }) }),
  });

describe('appErrorFromZodIssues: malformed input is a 400, an unacceptable value a 422', () => {
  it.each([
    ['invalid_type (string for a number)', z.object({ limit: z.number() }), { limit: 'abc' }, 'invalid_type'],
    [
      'invalid_type (NaN from a coerced limit=abc)',
      z.object({ limit: limitParam(100, 20) }),
      { limit: Number('abc') },
      'invalid_type',
    ],
    ['invalid_type (missing required field)', z.object({ url: z.string() }), {}, 'invalid_type'],
    ['invalid_type (body not an object)', z.object({ url: z.string() }), ['https://x'], 'invalid_type'],
    [
      'invalid_format (malformed uuid)',
      z.object({ id: uuidPathParam }),
      { id: 'not-a-uuid' },
      'invalid_format',
    ],
    [
      'invalid_format (timestamp does not parse)',
      z.object({ at: z.iso.datetime({ offset: true }) }),
      { at: 'yesterday' },
      'invalid_format',
    ],
    ['custom with params {status: 400}', refined(MALFORMED), { q: 'bad' }, 'custom'],
    [
      'custom with params {status: 400} (required text empty after trimming)',
      z.object({ q: requiredText('q') }),
      { q: '   ' },
      'custom',
    ],
  ])('%s → invalid_request (Form A 400, Form B 400)', (_label, schema, value, code) => {
    const { issues, err, statusA, statusB } = mapped(schema, value);
    expect(issues.map((i) => i.code)).toStrictEqual([code]);
    expect(err.code).toBe('invalid_request');
    expect(statusA).toBe(400);
    expect(statusB).toBe(400);
  });

  it.each([
    [
      'too_big (limit above the maximum)',
      z.object({ limit: limitParam(100, 20) }),
      { limit: 101 },
      'too_big',
    ],
    ['too_small (limit below 1)', z.object({ limit: limitParam(100, 20) }), { limit: 0 }, 'too_small'],
    [
      'too_big (q over 256 characters)',
      z.object({ q: z.string().max(256) }),
      { q: 'x'.repeat(257) },
      'too_big',
    ],
    [
      'too_small (empty events array)',
      z.object({ events: z.array(z.string()).min(1) }),
      { events: [] },
      'too_small',
    ],
    [
      'invalid_value (platform outside the enum)',
      z.object({ platform: z.enum(['meet', 'zoom']) }),
      { platform: 'skype' },
      'invalid_value',
    ],
    ['custom without params', refined(), { q: 'bad' }, 'custom'],
    ['custom with params {status: 422}', refined({ status: 422 }), { q: 'bad' }, 'custom'],
  ])('%s → validation_error (Form A 422, Form B 400)', (_label, schema, value, code) => {
    const { issues, err, statusA, statusB } = mapped(schema, value);
    expect(issues.map((i) => i.code)).toStrictEqual([code]);
    expect(err.code).toBe('validation_error');
    expect(statusA).toBe(422);
    expect(statusB).toBe(400);
  });

  it('a malformed value among acceptable-but-invalid ones makes the whole request invalid_request, named in the message', () => {
    const schema = z.object({
      limit: limitParam(100, 20),
      platform: z.enum(['meet', 'zoom']),
      cursor: z.string(),
    });
    const { issues, err } = mapped(schema, { limit: 500, platform: 'skype', cursor: 42 });
    expect(issues.map((i) => i.code)).toStrictEqual(['too_big', 'invalid_value', 'invalid_type']);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain('cursor');
    expect(err.message).not.toContain('limit');
  });

  it('a custom 400 issue after a 422 issue also gives invalid_request', () => {
    const schema = z.object({
      limit: limitParam(100, 20),
      q: z.string().refine(() => false, { message: 'q is malformed', params: MALFORMED }),
    });
    const { err } = mapped(schema, { limit: 0, q: 'x' });
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain('q is malformed');
  });

  it('several 422 issues give validation_error naming the first', () => {
    const schema = z.object({ limit: limitParam(100, 20), platform: z.enum(['meet', 'zoom']) });
    const { err } = mapped(schema, { limit: 0, platform: 'skype' });
    expect(err.code).toBe('validation_error');
    expect(err.message).toBe('limit must be between 1 and 100');
  });

  it('the message names the offending parameter', () => {
    const { err } = mapped(z.object({ limit: z.number().max(100) }), { limit: 101 });
    expect(err.message.startsWith('limit')).toBe(true);
    const nested = mapped(z.object({ body: z.object({ url: z.string() }) }), { body: {} });
    expect(nested.err.message).toContain('body.url');
  });

  it('no issues at all still gives a validation_error with a message', () => {
    const err = appErrorFromZodIssues([]);
    expect(err.code).toBe('validation_error');
    expect(err.message.length).toBeGreaterThan(0);
  });
});
