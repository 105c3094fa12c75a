import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSession } from '../support/browser-session';
import { startTestApp, type TestApp } from '../support/test-app';

// What anyone can reach without a session (the public tRPC procedures and next-auth's routes), fed
// random methods, paths, batches, query strings, headers, cookies and bodies. Never a 5xx; tRPC
// answers every error in its own envelope; nothing shows a stack. Each property runs with a fixed
// seed and with one random seed, printed so a failure can be replayed (FUZZ_SEED=<seed> runs that
// one instead of a new random seed; FUZZ_RUNS=<n> runs longer).

const FIXED_SEED = 20_261_123;
const RANDOM_SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : (Date.now() ^ (Math.random() * 2 ** 31)) >>> 0;
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

let app: TestApp;
let csrf: { token: string; cookie: string };
beforeAll(async () => {
  app = await startTestApp();
  const browser = new BrowserSession(app.url);
  const token = await browser.csrfToken();
  csrf = { token, cookie: `next-auth.csrf-token=${browser.cookies.get('next-auth.csrf-token')}` };
  // An account the credential posts sometimes hit.
  await browser.mutate('account.signUp', {
    email: 'fuzz-owner@example.com',
    password: 'quiet-harbor-lantern-71',
  });
});
afterAll(() => app?.close());

const seeds = [
  ['fixed', FIXED_SEED],
  ['random', RANDOM_SEED],
] as const;

// Strings that have broken parsers before: prototype names, encodings, control characters, URLs.
const nasty = fc.constantFrom(
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '%FF',
  '%',
  '\u0000',
  '\uD800',
  '\r\n',
  '../../etc/passwd',
  '//evil.example',
  '/\\evil.example',
  'https://evil.example/',
  'javascript:alert(1)',
  '{"a":',
  '[]',
  'null',
  '1e309',
  'a'.repeat(5000),
);
/** An optional value that is mostly absent (fc.option is mostly present). */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), nasty);
const method = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD');
const contentType = fc.option(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/x-www-form-urlencoded',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'application/vnd.api+json',
  ),
  { nil: undefined },
);
/** encodeURIComponent, after the lone surrogates it refuses are made U+FFFD (as UTF-8 would). */
/** A random header value, minus what fetch refuses in a header (CR, LF, NUL). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing these control characters is the point
const headerValue = (value: string) => value.replace(/[\r\n\u0000]/g, '');

const encode = (t: string) => encodeURIComponent(Buffer.from(t, 'utf8').toString('utf8'));
const garbageCookie = fc.oneof(
  text.map((t) => `next-auth.session-token=${encode(t)}`),
  fc.constant('next-auth.session-token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAA.BBBB.CCCC'),
  text.map((t) => `next-auth.callback-url=${encode(t)}`),
  text.map((t) => `next-auth.csrf-token=${encode(`${t}|${t}`)}`),
  text.map((t) => `__Secure-next-auth.session-token.0=${encode(t)}; __Secure-next-auth.session-token.1=x`),
  text,
);
const forwardedFor = sometimes(fc.oneof(fc.ipV4(), fc.ipV6(), text));
const signUpInput = fc.record(
  {
    email: fc.oneof(fc.emailAddress(), text, fc.constant('fuzz-owner@example.com'), fc.jsonValue()),
    password: fc.oneof(
      text,
      fc.constantFrom('quiet-harbor-lantern-71', 'p'.repeat(73), 'password123'),
      fc.string({ minLength: 60, maxLength: 90 }),
      fc.jsonValue(),
    ),
    name: fc.oneof(text, fc.jsonValue()),
  },
  { requiredKeys: [] },
);
/** Sign-up inputs that often get past validation, so the service itself is reached. */
const plausibleSignUp = fc.record(
  {
    email: fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(
            fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,15}$/),
            fc.constantFrom('example.com', 'e2e.test', 'MAIL.example.org'),
          )
          .map(([l, d]) => `${l}@${d}`),
      },
      { weight: 1, arbitrary: fc.emailAddress() },
      { weight: 1, arbitrary: text },
      { weight: 1, arbitrary: fc.jsonValue() },
    ),
    password: fc.oneof(
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'quiet-harbor-lantern-71',
          'amber tundra violin 36',
          '\u{1F511} orbit lantern \u{1F511} fjord',
        ),
      },
      { weight: 2, arbitrary: text },
      { weight: 1, arbitrary: fc.string({ minLength: 60, maxLength: 90 }) },
      { weight: 1, arbitrary: fc.jsonValue() },
    ),
    name: sometimes(fc.oneof(text, fc.jsonValue())),
  },
  { requiredKeys: ['email', 'password'] },
);
const signUpRequest = (batch: boolean) =>
  fc.record({
    method: fc.constant('POST'),
    paths: batch
      ? fc.array(fc.constant('account.signUp'), { minLength: 1, maxLength: 3 })
      : fc.constant(['account.signUp']),
    batch: fc.constant(batch),
    input: fc.constant(undefined),
    extraQuery: sometimes(fc.tuple(text, text)),
    body: batch
      ? fc
          .dictionary(fc.constantFrom('0', '1', '2', '__proto__'), plausibleSignUp, { minKeys: 1 })
          .map((b) => JSON.stringify(b))
      : plausibleSignUp.map((input) => JSON.stringify(input)),
    contentType: fc.constant('application/json'),
    cookie: sometimes(garbageCookie),
    forwardedFor,
  });
const trpcBody = fc.oneof(
  signUpInput.map((input) => JSON.stringify(input)),
  fc
    .dictionary(fc.constantFrom('0', '1', '2', '10', '__proto__', 'x'), signUpInput)
    .map((batch) => JSON.stringify(batch)),
  fc.json(),
  text,
  fc.constant('x'.repeat(70_000)),
  fc.constant(undefined),
);
const procedure = fc.oneof(
  fc.constantFrom(
    'account.signUp',
    'account.signUp',
    'account.get',
    'account.signOutEverywhere',
    'keys.list',
    'keys.create',
    'notes.search',
    'webhooks.create',
    'account',
    '',
  ),
  text,
);

/** tRPC's error envelope: {error: {message, code, data: {code, httpStatus, path?}}}, no stack. */
function expectTrpcError(value: unknown, status: number) {
  expect(value).toEqual({
    error: {
      message: expect.any(String),
      code: expect.any(Number),
      data: expect.objectContaining({ code: expect.any(String), httpStatus: expect.any(Number) }),
    },
  });
  const data = (value as { error: { data: Record<string, unknown> } }).error.data;
  expect(Object.keys(data).sort()).toEqual(
    ['code', 'httpStatus', ...('path' in data ? ['path'] : [])].sort(),
  );
  expect(data.httpStatus).toBeGreaterThanOrEqual(400);
  expect(data.httpStatus).toBeLessThan(500);
  if (status !== 207) expect(data.httpStatus).toBe(status);
}

describe('random requests to the public tRPC procedures', () => {
  it.each(seeds)("never a 5xx, every error in tRPC's envelope (%s seed %d)", async (_kind, seed) => {
    console.log(`ui-auth.property tRPC: seed ${seed}`);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          // Mostly the one public procedure, posted as the settings app's client posts it…
          { weight: 2, arbitrary: fc.boolean().chain(signUpRequest) },
          // …and anything at all.
          {
            weight: 1,
            arbitrary: fc.record({
              method,
              paths: fc.array(procedure, { minLength: 1, maxLength: 13 }),
              batch: fc.boolean(),
              input: sometimes(fc.oneof(fc.json(), text)),
              extraQuery: sometimes(fc.tuple(text, text)),
              body: trpcBody,
              contentType: fc.oneof(
                { weight: 3, arbitrary: fc.constant('application/json') },
                { weight: 2, arbitrary: contentType },
              ),
              cookie: sometimes(garbageCookie),
              forwardedFor,
            }),
          },
        ),
        async (r) => {
          const query = new URLSearchParams();
          if (r.batch) query.set('batch', '1');
          if (r.input !== undefined) query.set('input', r.input);
          if (r.extraQuery) query.append(r.extraQuery[0], r.extraQuery[1]);
          const path = (r.batch ? r.paths : r.paths.slice(0, 1))
            .join(',')
            .replace(/[?#/]/g, encodeURIComponent);
          // "." and ".." would leave /api/trpc/ before the request is even sent.
          fc.pre(!/^(\.|%2e){1,2}$/i.test(path));
          const headers: Record<string, string> = {};
          if (r.contentType) headers['content-type'] = r.contentType;
          if (r.cookie) headers.cookie = headerValue(r.cookie);
          if (r.forwardedFor) headers['x-forwarded-for'] = headerValue(r.forwardedFor);
          const hasBody = r.method !== 'GET' && r.method !== 'HEAD' && r.body !== undefined;
          let res: Response;
          try {
            res = await fetch(`${app.url}/api/trpc/${path}?${query}`, {
              method: r.method,
              headers,
              ...(hasBody && { body: r.body }),
            });
          } catch (err) {
            // A header value fetch itself refuses never reaches the server.
            if (
              err instanceof TypeError &&
              /header|ByteString|invalid/i.test(String(err.cause ?? err.message))
            )
              return;
            throw err;
          }
          const body = await res.text();
          expect(res.status, body).toBeLessThan(500);
          expect(res.headers.get('x-request-id')).toMatch(/\S/);
          expect(body).not.toMatch(/\n\s+at |"stack"/);
          if (r.method === 'HEAD') return;
          const json = JSON.parse(body) as unknown;
          if (res.status < 400) return;
          if (Array.isArray(json)) {
            for (const item of json) if ('error' in item) expectTrpcError(item, res.status);
          } else expectTrpcError(json, res.status);
        },
      ),
      { seed, numRuns: RUNS },
    );
  });
});

describe("random requests to next-auth's routes", () => {
  it.each(seeds)('never a 5xx, never a stack trace (%s seed %d)', async (_kind, seed) => {
    console.log(`ui-auth.property next-auth: seed ${seed}`);
    const action = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(
          'signin',
          'signout',
          'callback',
          'callback',
          'callback',
          'session',
          'csrf',
          'providers',
          'error',
          'verify-request',
          '_log',
        ),
      },
      { weight: 1, arbitrary: text },
    );
    const provider = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          'credentials',
          'credentials',
          'credentials',
          'github',
          'google',
          'email',
          undefined,
        ),
      },
      { weight: 1, arbitrary: text },
    );
    const field = fc.oneof(
      text,
      fc.constantFrom(
        '//evil.example',
        'javascript:alert(1)',
        'https://evil.example/',
        '/keys',
        'true',
        'fuzz-owner@example.com',
      ),
    );
    const fields = fc.record(
      {
        email: fc.oneof(field, fc.emailAddress()),
        password: fc.oneof(field, fc.constant('quiet-harbor-lantern-71'), fc.constant('p'.repeat(80))),
        csrfToken: fc.oneof({ weight: 1, arbitrary: field }, { weight: 3, arbitrary: fc.constant('VALID') }),
        callbackUrl: field,
        json: fc.constantFrom('true', 'false', ''),
        level: fc.constantFrom('error', 'warn', 'debug', 'info', '__proto__', 'constructor'),
        code: field,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          method: fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom('GET', 'POST') },
            { weight: 1, arbitrary: method },
          ),
          action,
          provider,
          query: fc.dictionary(
            fc.oneof(
              fc.constantFrom('callbackUrl', 'error', 'csrf', 'nextauth', '__proto__', 'constructor'),
              text,
            ),
            field,
            { maxKeys: 3 },
          ),
          body: fc.oneof(
            {
              weight: 3,
              arbitrary: fields.map((f) => ({
                type: 'application/x-www-form-urlencoded',
                text: new URLSearchParams(f as Record<string, string>).toString(),
              })),
            },
            {
              weight: 1,
              arbitrary: fields.map((f) => ({ type: 'application/json', text: JSON.stringify(f) })),
            },
            {
              weight: 1,
              arbitrary: fc
                .tuple(contentType, fc.oneof(fc.json(), text))
                .map(([type, t]) => ({ type, text: t })),
            },
          ),
          withCsrfCookie: fc.oneof(
            { weight: 3, arbitrary: fc.constant(true) },
            { weight: 1, arbitrary: fc.constant(false) },
          ),
          cookie: sometimes(garbageCookie),
          forwardedFor,
          forwardedHost: sometimes(
            fc.oneof(fc.constantFrom('evil.example', 'a b', 'x:99999', '[::1]:80'), text),
          ),
        }),
        async (r) => {
          const segments = [r.action, ...(r.provider === undefined ? [] : [r.provider])].map((s) =>
            s.replace(/[?#/]/g, encodeURIComponent),
          );
          fc.pre(segments.every((s) => !/^(\.|%2e){1,2}$/i.test(s)));
          const query = new URLSearchParams(Object.entries(r.query));
          const headers: Record<string, string> = {};
          if (r.body.type) headers['content-type'] = r.body.type;
          const cookies = [r.withCsrfCookie ? csrf.cookie : '', r.cookie ?? ''].filter(Boolean).join('; ');
          if (cookies) headers.cookie = headerValue(cookies);
          if (r.forwardedFor) headers['x-forwarded-for'] = headerValue(r.forwardedFor);
          if (r.forwardedHost) headers['x-forwarded-host'] = headerValue(r.forwardedHost);
          const hasBody = r.method !== 'GET' && r.method !== 'HEAD';
          const body = r.body.text.replaceAll('VALID', csrf.token);
          let res: Response;
          try {
            res = await fetch(`${app.url}/api/auth/${segments.join('/')}?${query}`, {
              method: r.method,
              headers,
              redirect: 'manual',
              ...(hasBody && { body }),
            });
          } catch (err) {
            if (
              err instanceof TypeError &&
              /header|ByteString|invalid/i.test(String(err.cause ?? err.message))
            )
              return;
            throw err;
          }
          const text = await res.text();
          expect(res.status, text).toBeLessThan(500);
          expect(res.headers.get('x-request-id')).toMatch(/\S/);
          expect(text).not.toMatch(/\n\s+at [\w.<]/);
          if (/^application\/json/.test(res.headers.get('content-type') ?? '') && r.method !== 'HEAD')
            expect(() => JSON.parse(text)).not.toThrow();
        },
      ),
      { seed, numRuns: RUNS },
    );
  });
});
