import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey, updateAccount } from '../../server/accounts/accounts';
import { startTestApp, type TestApp } from '../support/test-app';

// Rate limits of /v1, their headers, and which form's limit applies (docs/rules.md#rate-limits).

let app: TestApp;

/**
 * The API's clock, which is the test's: it stands still in the middle of a minute, so that every
 * request of a test falls in one Form B window (no test waits for a new minute) and every reset
 * is known exactly.
 */
const NOW = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;

beforeAll(async () => {
  app = await startTestApp({ now: () => new Date(NOW) });
});

afterAll(async () => {
  await app?.close();
});

type Res = Awaited<ReturnType<TestApp['request']>>;

/** Unix seconds at the end of the UTC day that contains `ms` (Form A windows). */
const endOfUtcDay = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) / 1000;
};
/** Unix seconds at the end of the clock minute that contains `ms` (Form B windows). */
const endOfMinute = (ms: number) => (Math.floor(ms / 60_000) + 1) * 60;

function rateHeaders(res: Res) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

/** Checks the three headers: limit and remaining, and reset as the end of the window that holds NOW. */
function expectRateHeaders(
  res: Res,
  expected: { limit: number; remaining: number; window: 'day' | 'minute' },
) {
  const end = expected.window === 'day' ? endOfUtcDay : endOfMinute;
  expect(rateHeaders(res)).toEqual({
    limit: String(expected.limit),
    remaining: String(expected.remaining),
    reset: String(end(NOW)),
  });
}

function expectNoRateHeaders(res: Res) {
  expect({ ...rateHeaders(res), retryAfter: res.headers.get('retry-after') }).toEqual({
    limit: null,
    remaining: null,
    reset: null,
    retryAfter: null,
  });
}

function expectJson(res: Res) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
}

/** Retry-After: the seconds from NOW to the end of the window that refused the request. */
function expectRetryAfter(res: Res, window: 'day' | 'minute') {
  const end = window === 'day' ? endOfUtcDay : endOfMinute;
  expect(res.headers.get('retry-after')).toBe(String(end(NOW) - NOW / 1000));
}

function expect429A(res: Res) {
  expect({ status: res.status, body: res.json }).toEqual({
    status: 429,
    body: { error: { code: 'rate_limited', message: expect.any(String) } },
  });
  expectJson(res);
  expectRetryAfter(res, 'day');
}

/** A Form B 429; refused by the account's day window, Retry-After runs to the end of the day. */
function expect429B(res: Res, window: 'minute' | 'day' = 'minute') {
  expect({ status: res.status, body: res.json }).toEqual({
    status: 429,
    body: { error: expect.any(String) },
  });
  expectJson(res);
  expectRetryAfter(res, window);
}

function burst(n: number, path: string, init: Parameters<TestApp['request']>[1]) {
  return Promise.all(Array.from({ length: n }, () => app.request(path, init)));
}

describe('rate-limit headers on every authenticated /v1 response', () => {
  it('every authenticated Form A response (200, 404, 400, 422, 403) carries X-RateLimit-Limit/Remaining/Reset, reset at the end of the UTC day', async () => {
    const cases: [string, { earlyAccess?: boolean }, string, number][] = [
      ['200 list', {}, '/v1/notes', 200],
      ['404 unknown note', {}, `/v1/notes/${randomUUID()}`, 404],
      ['404 unknown path', {}, '/v1/nothing-here', 404],
      ['400 malformed limit', {}, '/v1/notes?limit=abc', 400],
      ['400 malformed id', {}, '/v1/notes/not-a-uuid', 400],
      ['422 limit out of range', {}, '/v1/notes?limit=0', 422],
      ['403 without early access', { earlyAccess: false }, '/v1/notes', 403],
    ];
    for (const [name, opts, path, status] of cases) {
      const { key } = await app.createAccount({ plan: 'pro', ...opts });
      const r = await app.request(path, { key });
      expect({ case: name, status: r.status }).toEqual({ case: name, status });
      expectRateHeaders(r, { limit: 10_000, remaining: 9_999, window: 'day' });
      expect(r.headers.get('retry-after')).toBeNull();
    }
  });

  it('every authenticated Form B response (200, 404, 400, 403) carries X-RateLimit-Limit/Remaining/Reset, reset at the end of the clock minute', async () => {
    const cases: [string, { earlyAccess?: boolean }, string, number][] = [
      ['200 list', {}, '/v1/notes', 200],
      ['404 unknown note', {}, `/v1/notes/${randomUUID()}`, 404],
      ['404 unknown path', {}, '/v1/nothing-here', 404],
      ['400 malformed limit', {}, '/v1/notes?limit=abc', 400],
      ['400 limit out of range', {}, '/v1/notes?limit=0', 400],
      ['403 without early access', { earlyAccess: false }, '/v1/notes', 403],
    ];
    for (const [name, opts, path, status] of cases) {
      const { key } = await app.createAccount({ form: 'B', plan: 'free', ...opts });
      const r = await app.request(path, { key });
      expect({ case: name, status: r.status }).toEqual({ case: name, status });
      expectRateHeaders(r, { limit: 100, remaining: 99, window: 'minute' });
      expect(r.headers.get('retry-after')).toBeNull();
    }
  });

  it('every authenticated request counts, whatever its status: Remaining goes down by one each time', async () => {
    const { key } = await app.createAccount({ plan: 'pro' });
    const paths = [
      '/v1/notes',
      `/v1/notes/${randomUUID()}`,
      '/v1/notes?limit=abc',
      '/v1/nothing-here',
      '/v1/notes',
    ];
    const remaining = [];
    for (const path of paths)
      remaining.push((await app.request(path, { key })).headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['9999', '9998', '9997', '9996', '9995']);
  });

  it('401 responses (no key, unknown key, revoked key; either form) carry no X-RateLimit headers', async () => {
    const { account } = await app.createAccount();
    const { plaintext: revoked, key: revokedKey } = await createApiKey(app.db, { accountId: account.id });
    await revokeApiKey(app.db, revokedKey.id);
    const keys: [string, string | undefined][] = [
      ['no key', undefined],
      ['malformed key', 'nope'],
      ['unknown key', `mnk_${'b'.repeat(40)}`],
      ['revoked key', revoked],
    ];
    for (const [name, key] of keys) {
      for (const form of [undefined, 'A', 'B']) {
        const res = await app.request('/v1/notes', { ...(key && { key }), ...(form && { form }) });
        const body =
          form === 'B'
            ? { error: expect.any(String) }
            : { error: { code: 'invalid_api_key', message: expect.any(String) } };
        expect({ case: `${name} / form ${form ?? '-'}`, status: res.status, body: res.json }).toEqual({
          case: `${name} / form ${form ?? '-'}`,
          status: 401,
          body,
        });
        expectJson(res);
        expectNoRateHeaders(res);
      }
    }
  });
});

describe('Form B: 100 requests per key per clock minute', () => {
  it('150 concurrent requests on one Form B key give exactly 100 × 200 and 50 × 429 (Form B body, Retry-After)', async () => {
    const { key } = await app.createAccount({ form: 'B', plan: 'enterprise' });
    const responses = await burst(150, '/v1/notes', { key });

    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect({ ok: ok.length, limited: limited.length }).toEqual({ ok: 100, limited: 50 });

    // Each admitted request took a distinct slot: Remaining runs through 99..0 exactly once each.
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));

    for (const res of limited) {
      expect429B(res);
      expectRateHeaders(res, { limit: 100, remaining: 0, window: 'minute' });
    }
    for (const res of ok)
      expectRateHeaders(res, {
        limit: 100,
        remaining: Number(res.headers.get('x-ratelimit-remaining')),
        window: 'minute',
      });
  });

  it('once a Form B key is at its limit, Remaining stays 0 and every later request in the window (any path) is 429', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const first = await burst(100, '/v1/notes', { key });
    expect(first.every((r) => r.status === 200)).toBe(true);

    for (let i = 0; i < 3; i++) {
      const r = await app.request('/v1/notes', { key });
      expect429B(r);
      expectRateHeaders(r, { limit: 100, remaining: 0, window: 'minute' });
    }
    // A 404 after the limit is a 429 too: the limit is checked before the route.
    const r = await app.request(`/v1/notes/${randomUUID()}`, { key });
    expect429B(r);
  });

  it('Form B limits are per key: another key of the same account still has its 100', async () => {
    const { account, key } = await app.createAccount({ form: 'B' });
    const { plaintext: second } = await createApiKey(app.db, { accountId: account.id, form: 'B' });
    const first = await burst(100, '/v1/notes', { key });
    expect(first.every((r) => r.status === 200)).toBe(true);
    expect429B(await app.request('/v1/notes', { key }));

    const r = await app.request('/v1/notes', { key: second });
    expect(r.status).toBe(200);
    expectRateHeaders(r, { limit: 100, remaining: 99, window: 'minute' });
  });
});

describe('Form A: requests per account per UTC day by plan', () => {
  it('a free-plan account gets 100 requests per UTC day, shared by all its keys; the 101st is 429 rate_limited with Retry-After', async () => {
    const { account, key } = await app.createAccount({ plan: 'free' });
    const { plaintext: second } = await createApiKey(app.db, { accountId: account.id, form: 'A' });

    const a = await burst(60, '/v1/notes', { key });
    const b = await burst(40, '/v1/notes', { key: second });
    expect([...a, ...b].map((r) => r.status)).toEqual(Array(100).fill(200));
    const remaining = [...a, ...b]
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      .sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));

    for (const k of [key, second]) {
      const r = await app.request('/v1/notes', { key: k });
      expect429A(r);
      expectRateHeaders(r, { limit: 100, remaining: 0, window: 'day' });
    }
  });

  it('the plan sets the Form A daily limit: free 100, pro 10000, enterprise its daily_limit or 100000 by default', async () => {
    const cases: [string, { plan: 'free' | 'pro' | 'enterprise'; dailyLimit?: number }, number][] = [
      ['free', { plan: 'free' }, 100],
      ['pro', { plan: 'pro' }, 10_000],
      ['enterprise, default', { plan: 'enterprise' }, 100_000],
      ['enterprise, daily_limit 250', { plan: 'enterprise', dailyLimit: 250 }, 250],
    ];
    for (const [name, opts, limit] of cases) {
      const { key } = await app.createAccount(opts);
      const r = await app.request('/v1/notes', { key });
      expect({ case: name, status: r.status, limit: r.headers.get('x-ratelimit-limit') }).toEqual({
        case: name,
        status: 200,
        limit: String(limit),
      });
      expectRateHeaders(r, { limit, remaining: limit - 1, window: 'day' });
    }
  });

  it('an enterprise account with daily_limit 3 gets 429 on its 4th request, and 429s are not counted', async () => {
    const { account, key } = await app.createAccount({ plan: 'enterprise', dailyLimit: 3 });
    for (const remaining of [2, 1, 0]) {
      const r = await app.request('/v1/notes', { key });
      expect(r.status).toBe(200);
      expectRateHeaders(r, { limit: 3, remaining, window: 'day' });
    }
    for (let i = 0; i < 3; i++) {
      const r = await app.request('/v1/notes', { key });
      expect429A(r);
      expectRateHeaders(r, { limit: 3, remaining: 0, window: 'day' });
    }

    // Had the three 429s been counted, raising the limit to 5 would still leave the account at 6 > 5.
    await updateAccount(app.db, account.id, { dailyLimit: 5 });
    for (const remaining of [1, 0]) {
      const r = await app.request('/v1/notes', { key });
      expect(r.status).toBe(200);
      expectRateHeaders(r, { limit: 5, remaining, window: 'day' });
    }
    expect429A(await app.request('/v1/notes', { key }));
  });
});

describe("the request's form picks the limit", () => {
  it('a Form A key sending X-API-Form: B is limited to 100 per minute (Form B headers and 429 body)', async () => {
    const { key } = await app.createAccount({ form: 'A', plan: 'pro' });
    const r = await app.request('/v1/notes', { key, form: 'B' });
    expect(r.status).toBe(200);
    expectRateHeaders(r, { limit: 100, remaining: 99, window: 'minute' });

    const rest = await burst(99, '/v1/notes', { key, form: 'b' });
    expect(rest.every((x) => x.status === 200)).toBe(true);
    expect429B(await app.request('/v1/notes', { key, form: 'B' }));
  });

  it("a Form B key sending X-API-Form: A gets its account's daily plan limit", async () => {
    const { key } = await app.createAccount({ form: 'B', plan: 'pro' });
    const r = await app.request('/v1/notes', { key, form: 'A' });
    expect(r.status).toBe(200);
    expectRateHeaders(r, { limit: 10_000, remaining: 9_999, window: 'day' });
  });

  it("a free account's daily 100 is shared by its Form B keys, with X-API-Form: A or without it (more keys give no more requests)", async () => {
    const { account, key } = await app.createAccount({ form: 'A', plan: 'free' });
    const { plaintext: keyB } = await createApiKey(app.db, { accountId: account.id, form: 'B' });
    const spent = await burst(100, '/v1/notes', { key });
    expect(spent.every((r) => r.status === 200)).toBe(true);

    expect429A(await app.request('/v1/notes', { key: keyB, form: 'A' }));
    const r = await app.request('/v1/notes', { key: keyB });
    expect429B(r, 'day');
    expectRateHeaders(r, { limit: 100, remaining: 0, window: 'day' });
  });
});

describe("the daily limit binds the account whatever the form or key; Form B's minute window on top", () => {
  /** The account's day counter as a Form A request reports it: remaining after that request. */
  async function dayRemaining(key: string) {
    const res = await app.request('/v1/notes', { key, form: 'A' });
    expect(res.status).toBe(200);
    return Number(res.headers.get('x-ratelimit-remaining'));
  }

  it('an exhausted free Form A key sending X-API-Form: B gets a Form B 429 describing the day window, not 100 more per minute', async () => {
    const { key } = await app.createAccount({ form: 'A', plan: 'free' });
    const spent = await burst(100, '/v1/notes', { key });
    expect(spent.every((r) => r.status === 200)).toBe(true);
    for (let i = 0; i < 3; i++) {
      const r = await app.request('/v1/notes', { key, form: 'B' });
      expect429B(r, 'day');
      expectRateHeaders(r, { limit: 100, remaining: 0, window: 'day' });
      expect(r.json.error).toContain('per UTC day');
    }
  });

  it('twenty Form B keys of a free account, 10 concurrent requests each, get exactly 100 admitted in all', async () => {
    const { account, key: own } = await app.createAccount({ form: 'B', plan: 'free' });
    // The account's own key and 19 more: the most an account may have (20 active keys).
    const keys = [own];
    for (let i = 0; i < 19; i++)
      keys.push((await createApiKey(app.db, { accountId: account.id, form: 'B' })).plaintext);
    const responses = await Promise.all(
      keys.flatMap((key) => Array.from({ length: 10 }, () => app.request('/v1/notes', { key }))),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect({ ok: ok.length, limited: limited.length }).toEqual({ ok: 100, limited: 100 });
    // Admitted Form B responses describe their key's minute window; refusals the account's day.
    for (const res of ok)
      expectRateHeaders(res, {
        limit: 100,
        remaining: Number(res.headers.get('x-ratelimit-remaining')),
        window: 'minute',
      });
    for (const res of limited) {
      expect429B(res, 'day');
      expectRateHeaders(res, { limit: 100, remaining: 0, window: 'day' });
    }
  });

  it("a Form B request counts against the account's day as well as its key's minute", async () => {
    const { key } = await app.createAccount({ form: 'B', plan: 'pro' });
    const r = await app.request('/v1/notes', { key });
    expect(r.status).toBe(200);
    expectRateHeaders(r, { limit: 100, remaining: 99, window: 'minute' });
    await app.request('/v1/notes', { key });
    expect(await dayRemaining(key)).toBe(10_000 - 3);
  });

  it('requests refused by the minute window use none of the day: 150 concurrent on one Form B key count exactly 100 against the day', async () => {
    const { key } = await app.createAccount({ form: 'B', plan: 'enterprise', dailyLimit: 1000 });
    const responses = await burst(150, '/v1/notes', { key });
    expect(responses.filter((r) => r.status === 200)).toHaveLength(100);
    for (const res of responses.filter((r) => r.status !== 200)) expect429B(res, 'minute');
    expect(await dayRemaining(key)).toBe(1000 - 100 - 1);
  });

  it("requests refused by the day window use none of the key's minute (concurrently, two Form B keys sharing a day of 50)", async () => {
    const { account, key: first } = await app.createAccount({
      form: 'B',
      plan: 'enterprise',
      dailyLimit: 50,
    });
    const { plaintext: second } = await createApiKey(app.db, { accountId: account.id, form: 'B' });
    const [a, b] = await Promise.all([
      burst(60, '/v1/notes', { key: first }),
      burst(60, '/v1/notes', { key: second }),
    ]);
    const admitted = (rs: Res[]) => rs.filter((r) => r.status === 200).length;
    expect(admitted(a) + admitted(b)).toBe(50);
    for (const res of [...a, ...b].filter((r) => r.status !== 200)) {
      expect429B(res, 'day');
      expect(res.headers.get('x-ratelimit-limit')).toBe('50');
    }
    // With room in the day again, each key's minute shows only its own admitted requests.
    await updateAccount(app.db, account.id, { dailyLimit: 1000 });
    for (const [key, rs] of [
      [first, a],
      [second, b],
    ] as const) {
      const res = await app.request('/v1/notes', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(100 - admitted(rs) - 1));
    }
  });

  it('refused by both windows at once, the 429 describes the one that frees up last (the day)', async () => {
    const { key } = await app.createAccount({ form: 'B', plan: 'enterprise', dailyLimit: 100 });
    const spent = await burst(100, '/v1/notes', { key });
    expect(spent.every((r) => r.status === 200)).toBe(true);
    const r = await app.request('/v1/notes', { key });
    expect429B(r, 'day');
    expectRateHeaders(r, { limit: 100, remaining: 0, window: 'day' });
  });

  it("a Form B key refused by its minute window gets the minute's headers while the account's other keys go on", async () => {
    const { account, key } = await app.createAccount({ form: 'B', plan: 'pro' });
    const { plaintext: other } = await createApiKey(app.db, { accountId: account.id, form: 'B' });
    expect((await burst(100, '/v1/notes', { key })).every((r) => r.status === 200)).toBe(true);
    const refused = await app.request('/v1/notes', { key });
    expect429B(refused, 'minute');
    expectRateHeaders(refused, { limit: 100, remaining: 0, window: 'minute' });
    expect(refused.json.error).toContain('per minute');
    const r = await app.request('/v1/notes', { key: other });
    expect(r.status).toBe(200);
    expectRateHeaders(r, { limit: 100, remaining: 99, window: 'minute' });
  });
});
