import { createHash, randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../server/accounts/accounts';
import { revokeAccountKey } from '../../server/accounts/api-key-management';
import { queryRows } from '../../server/db/client';
import { apiKeys, meetings } from '../../server/db/schema';
import { startTestApp, type TestApp } from '../support/test-app';

// Authentication, choosing the form, and accounts, early access and keys
// (docs/rules.md#authentication, docs/rules.md#choosing-the-form,
// docs/rules.md#accounts-early-access-and-api-keys).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

type Form = 'A' | 'B';
type Res = Awaited<ReturnType<TestApp['request']>>;

function expectCommon(res: Res) {
  expect(res.status, res.text).not.toBe(500);
  expect(res.headers.get('x-request-id')).toMatch(/\S/);
  if (res.status !== 204) expect(res.headers.get('content-type')).toMatch(/^application\/json\b/i);
}

/** The error bodies: Form A `{"error":{"code","message"}}`, Form B `{"error":"<message>"}`. */
function expectError(res: Res, form: Form, status: number, code: string) {
  expectCommon(res);
  expect(res.status, res.text).toBe(status);
  if (form === 'A') {
    expect(res.json).toEqual({ error: { code, message: expect.any(String) } });
    expect(res.json.error.message).toMatch(/\S/);
  } else {
    expect(res.json).toEqual({ error: expect.any(String) });
    expect(res.json.error).toMatch(/\S/);
  }
}

/** A key of the same shape that differs in its last character: well-formed, but no account has it. */
function unknownKeyLike(key: string): string {
  const last = key.at(-1)!;
  return key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
}

const SEGMENTS_A = [
  { sequence: 1, speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0 },
  { sequence: 2, speaker: 'Ben', content: 'Yes, the release is on track for Friday.', start_time: 2.5 },
];
const SEGMENTS_B = [
  { ...SEGMENTS_A[0], end_time: 2.5 },
  { ...SEGMENTS_A[1], end_time: 6 },
];

/** The note recordNote() stores by default, as each form writes it. */
const noteA = (id: string) => ({
  id,
  title: 'Weekly sync',
  platform: 'zoom',
  duration_seconds: expect.any(Number),
  created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  ended_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  language: 'en',
  transcript: SEGMENTS_A,
  summary: null,
  action_items: [],
});
const noteB = (id: string) => ({
  id,
  title: 'Weekly sync',
  platform: 'zoom',
  duration_seconds: expect.any(Number),
  started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  ended_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  status: 'ready',
  transcript: SEGMENTS_B,
  summary: null,
});

async function noteExists(id: string): Promise<boolean> {
  const rows = await app.db.select({ id: meetings.id }).from(meetings).where(eq(meetings.id, id));
  return rows.length === 1;
}

// ---------------------------------------------------------------------------------------------
// 401: missing, invalid or revoked key
// ---------------------------------------------------------------------------------------------

const CREDENTIALS: { what: string; authorization: (key: string) => string | undefined; revoke?: boolean }[] =
  [
    { what: 'no Authorization header', authorization: () => undefined },
    { what: 'an empty Authorization header', authorization: () => '' },
    {
      what: 'the Basic scheme',
      authorization: (k) => `Basic ${Buffer.from(`user:${k}`).toString('base64')}`,
    },
    { what: 'the Token scheme', authorization: (k) => `Token ${k}` },
    { what: 'the key without a scheme', authorization: (k) => k },
    { what: '"Bearer" without a key', authorization: () => 'Bearer' },
    { what: 'Bearer with two tokens', authorization: (k) => `Bearer ${k} ${k}` },
    { what: 'a malformed key (Bearer abc)', authorization: () => 'Bearer abc' },
    { what: 'a truncated key', authorization: (k) => `Bearer ${k.slice(0, -1)}` },
    { what: 'a key with an extra character', authorization: (k) => `Bearer ${k}x` },
    { what: 'a well-formed unknown key', authorization: (k) => `Bearer ${unknownKeyLike(k)}` },
    { what: 'a revoked key', authorization: (k) => `Bearer ${k}`, revoke: true },
  ];

const HEADER_FORMS: { header?: string; form: Form }[] = [
  { header: undefined, form: 'A' },
  { header: 'a', form: 'A' },
  { header: 'A', form: 'A' },
  { header: 'b', form: 'B' },
  { header: 'B', form: 'B' },
];

describe('401 for a missing, invalid or revoked key', () => {
  for (const cred of CREDENTIALS) {
    for (const hf of HEADER_FORMS) {
      const label = hf.header === undefined ? 'no X-API-Form' : `X-API-Form: ${hf.header}`;
      it(`${cred.what}, ${label} -> 401 in Form ${hf.form} (the key's own form is B)`, async () => {
        // The credentials are derived from a Form B key, so a Form A 401 shows that the key's
        // form plays no part in a 401 (the header's form, otherwise Form A).
        const { key, keyId } = await app.createAccount({ form: 'B' });
        const noteId = await app.recordNote(key);
        if (cred.revoke) await revokeApiKey(app.db, keyId);
        const authorization = cred.authorization(key);
        const headers: Record<string, string> = {};
        if (authorization !== undefined) headers.authorization = authorization;
        if (hf.header !== undefined) headers['x-api-form'] = hf.header;

        for (const [method, path] of [
          ['GET', '/v1/notes'],
          ['GET', `/v1/notes/${noteId}`],
          ['DELETE', `/v1/notes/${noteId}`],
          ['GET', '/v1/nope'],
        ] as const) {
          const res = await app.request(path, { method, headers });
          expectError(res, hf.form, 401, 'invalid_api_key');
          expect(res.text).not.toContain(key);
        }
        expect(await noteExists(noteId)).toBe(true);
      });
    }
  }

  it.each(['A', 'B'] as const)('revocation takes effect on the next request (Form %s key)', async (form) => {
    const { account, key, keyId } = await app.createAccount({ form });
    const other = await createApiKey(app.db, { accountId: account.id, form });
    const before = await app.request('/v1/notes', { key });
    expect(before.status).toBe(200);
    await revokeAccountKey(app.db, { accountId: account.id, keyId });
    const after = await app.request('/v1/notes', { key });
    expectError(after, 'A', 401, 'invalid_api_key');
    const afterB = await app.request('/v1/notes', { key, form: 'B' });
    expectError(afterB, 'B', 401, 'invalid_api_key');
    // Only that key is revoked: the account's other key still works.
    const sibling = await app.request('/v1/notes', { key: other.plaintext });
    expect(sibling.status).toBe(200);
    expect(sibling.json).toEqual({ data: [], next_cursor: null, has_more: false });
  });

  it.each(['bearer', 'BEARER', 'Bearer'])(
    'the Bearer scheme is accepted in any case ("%s")',
    async (scheme) => {
      const { key } = await app.createAccount();
      const res = await app.request('/v1/notes', { headers: { authorization: `${scheme} ${key}` } });
      expectCommon(res);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ data: [], next_cursor: null, has_more: false });
    },
  );
});

// ---------------------------------------------------------------------------------------------
// An invalid X-API-Form is a Form A 400, even with a valid key
// ---------------------------------------------------------------------------------------------

describe('X-API-Form values other than A or B', () => {
  const BAD = ['C', '', 'AB', 'Form A', '1', 'a,b'];
  for (const value of BAD) {
    for (const keyForm of ['A', 'B'] as const) {
      it(`X-API-Form: ${JSON.stringify(value)} -> 400 Form A invalid_request, valid Form ${keyForm} key`, async () => {
        const { key } = await app.createAccount({ form: keyForm });
        const noteId = await app.recordNote(key);
        for (const [method, path] of [
          ['GET', '/v1/notes'],
          ['GET', `/v1/notes/${noteId}`],
          ['DELETE', `/v1/notes/${noteId}`],
          ['GET', '/v1/nope'],
        ] as const) {
          const res = await app.request(path, { method, key, headers: { 'x-api-form': value } });
          expectError(res, 'A', 400, 'invalid_request');
        }
        expect(await noteExists(noteId)).toBe(true);
      });
    }
  }
});

// ---------------------------------------------------------------------------------------------
// A valid key of an account without early access gets 403 everywhere
// ---------------------------------------------------------------------------------------------

const VARIANTS: { name: string; keyForm: Form; header?: string; form: Form }[] = [
  { name: 'Form A key', keyForm: 'A', form: 'A' },
  { name: 'Form B key', keyForm: 'B', form: 'B' },
  { name: 'Form A key + X-API-Form: B', keyForm: 'A', header: 'B', form: 'B' },
  { name: 'Form B key + X-API-Form: a', keyForm: 'B', header: 'a', form: 'A' },
];

describe('no early access', () => {
  for (const v of VARIANTS) {
    it(`403 on every /v1 path, known or unknown [${v.name}] -> Form ${v.form}`, async () => {
      const { key } = await app.createAccount({ form: v.keyForm, earlyAccess: false });
      const noteId = await app.recordNote(key);
      const requests: [string, string, unknown?][] = [
        ['GET', '/v1/notes'],
        ['GET', '/v1/notes?limit=abc'],
        ['GET', `/v1/notes/${noteId}`],
        ['GET', `/v1/notes/${randomUUID()}`],
        ['GET', '/v1/notes/not-a-uuid'],
        ['DELETE', `/v1/notes/${noteId}`],
        ['GET', '/v1'],
        ['GET', '/v1/nope'],
        ['GET', `/v1/webhooks/${randomUUID()}/deliveries`],
        ['POST', '/v1/notes', {}],
      ];
      for (const [method, path, json] of requests) {
        const res = await app.request(path, { method, key, form: v.header, json });
        expectError(res, v.form, 403, 'forbidden');
      }
      expect(await noteExists(noteId)).toBe(true);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Another account's note is not found
// ---------------------------------------------------------------------------------------------

describe('keys are scoped to one account', () => {
  for (const v of VARIANTS) {
    it(`another account's note is 404 for GET and DELETE and stays [${v.name}] -> Form ${v.form}`, async () => {
      const owner = await app.createAccount({ form: 'A' });
      const noteId = await app.recordNote(owner.key);
      const stranger = await app.createAccount({ form: v.keyForm });

      const get = await app.request(`/v1/notes/${noteId}`, { key: stranger.key, form: v.header });
      expectError(get, v.form, 404, 'not_found');
      const del = await app.request(`/v1/notes/${noteId}`, {
        method: 'DELETE',
        key: stranger.key,
        form: v.header,
      });
      expectError(del, v.form, 404, 'not_found');
      const list = await app.request('/v1/notes', { key: stranger.key, form: v.header });
      expect(list.status).toBe(200);
      expect(list.json).toEqual({ data: [], next_cursor: null, has_more: false });

      // The not-found answer for another account's note is the same as for a note that never existed.
      const unknown = await app.request(`/v1/notes/${randomUUID()}`, { key: stranger.key, form: v.header });
      expect(unknown.status).toBe(get.status);
      expect(unknown.json).toEqual(get.json);

      expect(await noteExists(noteId)).toBe(true);
      const mine = await app.request(`/v1/notes/${noteId}`, { key: owner.key });
      expect(mine.status).toBe(200);
      expect(mine.json).toEqual(noteA(noteId));
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The key's form decides, the header overrides it both ways
// ---------------------------------------------------------------------------------------------

describe('selecting the form', () => {
  for (const v of VARIANTS) {
    it(`responses and errors use the request's form [${v.name}] -> Form ${v.form}`, async () => {
      const { key } = await app.createAccount({ form: v.keyForm });
      const noteId = await app.recordNote(key);

      const one = await app.request(`/v1/notes/${noteId}`, { key, form: v.header });
      expectCommon(one);
      expect(one.status).toBe(200);
      expect(one.json).toEqual(v.form === 'A' ? noteA(noteId) : noteB(noteId));

      const list = await app.request('/v1/notes', { key, form: v.header });
      expectCommon(list);
      expect(list.status).toBe(200);
      const { language, summary, action_items, ...listItemA } = noteA(noteId);
      expect(list.json).toEqual({
        data: [v.form === 'A' ? listItemA : noteB(noteId)],
        next_cursor: null,
        has_more: false,
      });

      const missing = await app.request(`/v1/notes/${randomUUID()}`, { key, form: v.header });
      expectError(missing, v.form, 404, 'not_found');
      const bad = await app.request('/v1/notes?limit=0', { key, form: v.header });
      expectError(bad, v.form, v.form === 'A' ? 422 : 400, 'validation_error');

      // DELETE exists only in Form A: what the request's form says, not the key's.
      const del = await app.request(`/v1/notes/${noteId}`, { method: 'DELETE', key, form: v.header });
      if (v.form === 'A') {
        expect(del.status).toBe(204);
        expect(del.text).toBe('');
        expect(del.headers.get('x-request-id')).toMatch(/\S/);
        expect(await noteExists(noteId)).toBe(false);
      } else {
        expectError(del, 'B', 404, 'not_found');
        expect(await noteExists(noteId)).toBe(true);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// How keys are kept
// ---------------------------------------------------------------------------------------------

describe('API keys', () => {
  it.each(['A', 'B'] as const)('last_used_at is recorded when a Form %s key is used', async (form) => {
    const { key, keyId } = await app.createAccount({ form });
    const [fresh] = await app.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(fresh!.lastUsedAt).toBeNull();

    const t0 = Date.now();
    const res = await app.request('/v1/notes', { key });
    const t1 = Date.now();
    expect(res.status).toBe(200);

    // Written with the key's usage: within a second, or at once when the figures are read.
    await app.flushCounts();
    const [used] = await app.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(used!.lastUsedAt).toBeInstanceOf(Date);
    expect(used!.lastUsedAt!.getTime()).toBeGreaterThanOrEqual(t0);
    expect(used!.lastUsedAt!.getTime()).toBeLessThanOrEqual(t1);
  });

  it('a failed request with an unknown key records no use of any key', async () => {
    const { key, keyId } = await app.createAccount();
    const res = await app.request('/v1/notes', { key: unknownKeyLike(key) });
    expect(res.status).toBe(401);
    await app.flushCounts();
    const [row] = await app.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(row!.lastUsedAt).toBeNull();
  });

  it.each(['A', 'B'] as const)(
    'a Form %s key is stored only as a SHA-256 hex hash, a prefix and the last four characters',
    async (form) => {
      const { key, keyId } = await app.createAccount({ form });
      // Use the key a little, so that anything written per request is in the database as well.
      await app.recordNote(key);
      expect((await app.request('/v1/notes', { key })).status).toBe(200);
      expect((await app.request('/v1/nope', { key })).status).toBe(404);

      const [row] = await queryRows<Record<string, unknown>>(
        app.db,
        sql`select * from api_keys where id = ${keyId}`,
      );
      expect(row).toBeDefined();
      const sha256 = createHash('sha256').update(key, 'utf8').digest('hex');
      expect(row!.key_hash).toBe(sha256);
      expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row!.last_four).toBe(key.slice(-4));
      const prefix = row!.prefix as string;
      expect(key.startsWith(prefix)).toBe(true);
      expect(prefix.length).toBeGreaterThan(0);
      expect(prefix.length).toBeLessThanOrEqual(12);
      expect(key.length - prefix.length - 4).toBeGreaterThanOrEqual(20);

      // No column of the key's row holds the key, or any 12 consecutive characters of it.
      const windows = Array.from({ length: key.length - 11 }, (_, i) => key.slice(i, i + 12));
      for (const [column, value] of Object.entries(row!)) {
        const text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
        for (const w of windows) expect(text, `column ${column}`).not.toContain(w);
      }

      // Nor does any other table.
      const tables = await queryRows<{ table_name: string }>(
        app.db,
        sql`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
      );
      expect(tables.map((t) => t.table_name)).toContain('api_keys');
      for (const { table_name } of tables) {
        const rows = await queryRows<{ t: string }>(
          app.db,
          sql`select t::text as t from ${sql.identifier(table_name)} t`,
        );
        for (const { t } of rows) expect(t, `table ${table_name}`).not.toContain(key);
      }
    },
  );
});
