import { expect } from 'vitest';
import type { TestApp } from './test-app';

// What the hostile-input tables of every resource share: the forms, the exact error shape each
// form answers, and the inputs that are hostile to any route (Object.prototype's names, instants
// outside what the service stores, text PostgreSQL refuses).

export type Form = 'A' | 'B';
export const FORMS: Form[] = ['A', 'B'];

/** An answer of the test app (status, headers, text and parsed JSON). */
export type Answer = Awaited<ReturnType<TestApp['request']>>;

/** Form A's error code for each status a refusal of hostile input gets. */
export const FORM_A_CODE = { 400: 'invalid_request', 404: 'not_found', 422: 'validation_error' } as const;

/** Every /v1 and recorder answer: never a 500, a request id, and never cached. */
export function expectApiHeaders(res: Answer) {
  expect(res.status, res.text).toBeLessThan(500);
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

/** The form's exact error body (Form A's code follows from the status), naming the input, no stack trace. */
export function expectError(res: Answer, form: Form, status: keyof typeof FORM_A_CODE, mentions?: string) {
  expectApiHeaders(res);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const message = form === 'A' ? res.json?.error?.message : res.json?.error;
  expect({ status: res.status, body: res.json }).toEqual({
    status,
    body:
      form === 'A'
        ? { error: { code: FORM_A_CODE[status], message: expect.any(String) } }
        : { error: expect.any(String) },
  });
  expect(message).not.toMatch(/\n\s+at /);
  if (mentions) expect(message).toContain(mentions);
}

/** What a row of a table expects: the form's error (naming the input), or a success. */
export type RowOutcome = { error: keyof typeof FORM_A_CODE; mentions?: string } | { ok: number };

/**
 * Sends each of a row's requests and checks the answer: the form's exact error, or the success
 * status with a JSON body that equals `plain`'s (the same request without the hostile part), when
 * given. `check` looks further at each success.
 */
export async function expectRowAnswers(
  form: Form,
  outcome: RowOutcome,
  paths: string[],
  send: (path: string) => Promise<Answer>,
  opts: { plain?: Answer | false; check?: (res: Answer) => void } = {},
) {
  for (const path of paths) {
    const res = await send(path);
    if ('error' in outcome) {
      expectError(res, form, outcome.error, outcome.mentions);
      continue;
    }
    expectApiHeaders(res);
    expect({ path, status: res.status }).toEqual({ path, status: outcome.ok });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    if (opts.plain) expect(res.json).toEqual(opts.plain.json);
    opts.check?.(res);
  }
}

/** Object.prototype's members, which a lookup in a plain object finds although no client sent them. */
export const PROTOTYPE_NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'prototype',
];

/** A query parameter given once, twice, bare, and as an array. */
export const spellings = (name: string) => [`${name}=1`, `${name}=1&${name}=2`, name, `${name}[]=x`];

/** Well-formed instants outside 0100-01-01T00:00:00Z..9999-12-31T23:59:59.999Z. */
export const OUT_OF_RANGE_INSTANTS = [
  ['year 0000', '0000-01-01T00:00:00Z'],
  ['year 0001 (read back as 2001 by the driver)', '0001-01-01T00:00:00Z'],
  ['year 0099 (read back as 1999 by the driver)', '0099-12-31T23:59:59.999Z'],
  ['year 0100 with an offset that lands in year 0099', '0100-01-01T00:30:00+01:00'],
  ['year 9999 with an offset that lands in year 10000', '9999-12-31T23:30:00-01:00'],
] as const;
