import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createApiKey, revokeApiKey } from '../../server/accounts/accounts';
import {
  type Answer as Res,
  expectRowAnswers,
  type Form,
  FORM_A_CODE,
  FORMS,
  OUT_OF_RANGE_INSTANTS,
  PROTOTYPE_NAMES,
  spellings,
} from '../support/hostile-input';
import { startTestApp, type TestApp } from '../support/test-app';

// Hostile input to the notes endpoints (list, get, delete, search), one table: each row is an input
// and what each form must answer it. Every row runs in both forms, with a key of that form made for
// the row and revoked after it (Form B counts 100 requests per key per minute; an account holds at
// most 20 active keys); a refused delete must leave the account's two notes in place. The ordinary
// bad input of these endpoints (limit, platform, malformed ids, paths and methods) is in
// validation.test.ts; what concerns every route (paths that are not valid percent-encoding, HEAD,
// OPTIONS, Cache-Control) is in test/api/hostile-requests.test.ts.

let app: TestApp;
const accounts = {} as Record<Form, { id: string; notes: [older: string, newer: string] }>;

beforeAll(async () => {
  app = await startTestApp();
  for (const form of FORMS) {
    const { account, key } = await app.createAccount({ form, plan: 'enterprise' });
    const older = await app.recordNote(key, { title: `Planning ${form}` });
    const newer = await app.recordNote(key, { title: `Planning review ${form}` });
    accounts[form] = { id: account.id, notes: [older, newer] };
  }
});

afterAll(async () => {
  await app?.close();
});

interface Ctx {
  key: string;
  /** The account's two notes, older first. */
  notes: [string, string];
  unknownId: string;
}

/** An error in the form's shape (the Form A code follows from the status), or a success. */
type Outcome =
  | { error: 400 | 404 | 422; mentions?: string }
  | {
      ok: 200;
      /** The answer must equal this request's answer (same key), the hostile part left out. */
      sameAs?: (c: Ctx) => string;
      check?: (res: Res, c: Ctx) => void;
    };

interface Row {
  route: 'GET /v1/notes' | 'GET /v1/notes/:id' | 'DELETE /v1/notes/:id' | 'GET /v1/notes/search';
  /** The hostile input, in plain words. */
  input: string;
  /** The requests: each must get the row's answer (one, or several spellings of the input). */
  paths: (c: Ctx) => string[];
  expect: Record<Form, Outcome>;
}

/** A key of the account's form for one test, revoked when the test ends. */
async function keyForOneTest(accountId: string, form: Form) {
  const { plaintext, key } = await createApiKey(app.db, { accountId, form });
  onTestFinished(async () => {
    await revokeApiKey(app.db, key.id);
  });
  return plaintext;
}

const enc = encodeURIComponent;
const listed = (res: Res) => res.json.data.map((n: { id: string }) => n.id);
const listsBoth = (res: Res, c: Ctx) => expect(listed(res)).toEqual([c.notes[1], c.notes[0]]);
const listsNone = (res: Res) => expect(res.json).toEqual({ data: [], next_cursor: null, has_more: false });
const both = (outcome: Outcome): Record<Form, Outcome> => ({ A: outcome, B: outcome });

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

const PROTOTYPE_ROUTES: { route: Row['route']; path: (c: Ctx) => string; expect: Outcome }[] = [
  { route: 'GET /v1/notes', path: () => '/v1/notes', expect: { ok: 200, sameAs: () => '/v1/notes' } },
  {
    route: 'GET /v1/notes/:id',
    path: (c) => `/v1/notes/${c.notes[0]}`,
    expect: { ok: 200, sameAs: (c) => `/v1/notes/${c.notes[0]}` },
  },
  { route: 'GET /v1/notes/:id', path: (c) => `/v1/notes/${c.unknownId}`, expect: { error: 404 } },
  {
    route: 'GET /v1/notes/search',
    path: () => '/v1/notes/search?q=planning',
    expect: { ok: 200, sameAs: () => '/v1/notes/search?q=planning' },
  },
  // Form B has no DELETE: 404 there too.
  { route: 'DELETE /v1/notes/:id', path: (c) => `/v1/notes/${c.unknownId}`, expect: { error: 404 } },
];

/** The first and last instants the service stores, one written with an offset. */
const IN_RANGE = [
  ['the first instant stored', '0100-01-01T00:00:00Z', 'first'],
  ['the last instant stored', '9999-12-31T23:59:59.999Z', 'last'],
  ['the first instant stored, written with an offset', '0100-01-01T01:00:00+01:00', 'first'],
] as const;

/** A Form A cursor (base64url of "<ms>:<id>") whose milliseconds fall after year 9999. */
const FORGED_CURSOR = Buffer.from(`999999999999999:${randomUUID()}`).toString('base64url');

/** A NUL character, which PostgreSQL's text refuses. (An unpaired surrogate cannot travel in a URL:
 * percent-encoding writes UTF-8, which has no such thing; the recorder's bodies carry one.) */
const NUL = 'a\u0000b';

const ROWS: Row[] = [
  // ---- query parameters named after Object.prototype's members are unknown parameters, ignored
  ...PROTOTYPE_ROUTES.flatMap(({ route, path, expect: outcome }) =>
    PROTOTYPE_NAMES.map(
      (name): Row => ({
        route,
        input: `a query parameter named ${name}, once, twice, bare or as an array${
          'error' in outcome ? '' : ' (ignored)'
        }${route.endsWith(':id') ? ` on ${'error' in outcome ? 'an unknown' : 'its own'} note` : ''}`,
        paths: (c) => spellings(name).map((q) => withQuery(path(c), q)),
        expect: both(outcome),
      }),
    ),
  ),
  ...PROTOTYPE_NAMES.map(
    (name): Row => ({
      route: 'GET /v1/notes',
      input: `a query parameter named ${name} twice around limit=1 (ignored, limit still applies)`,
      paths: () => [`/v1/notes?${name}=5&limit=1&${name}=6`],
      expect: both({
        ok: 200,
        sameAs: () => '/v1/notes?limit=1',
        check: (res, c) => {
          expect(listed(res)).toEqual([c.notes[1]]);
          expect(res.json.has_more).toBe(true);
        },
      }),
    }),
  ),

  // ---- instants outside years 0100-9999 are refused
  ...OUT_OF_RANGE_INSTANTS.flatMap(([label, value]): Row[] => [
    ...['created_after', 'created_before'].map(
      (name): Row => ({
        route: 'GET /v1/notes',
        input: `${name} in ${label}`,
        paths: () => [`/v1/notes?${name}=${enc(value)}`],
        expect: { A: { error: 422, mentions: name }, B: { error: 400, mentions: name } },
      }),
    ),
    {
      route: 'GET /v1/notes',
      input: `a timestamp cursor in ${label} (Form B's cursor format; malformed in Form A)`,
      paths: () => [`/v1/notes?cursor=${enc(value)}`],
      expect: both({ error: 400, mentions: 'cursor' }),
    },
  ]),
  {
    route: 'GET /v1/notes',
    input: "a forged Form A cursor past year 9999 (15-digit milliseconds; not Form B's format either)",
    paths: () => [`/v1/notes?cursor=${FORGED_CURSOR}`],
    expect: both({ error: 400, mentions: 'cursor' }),
  },
  ...IN_RANGE.flatMap(([label, value, end]): Row[] => [
    {
      route: 'GET /v1/notes',
      input: `created_after at ${label} (accepted)`,
      paths: () => [`/v1/notes?created_after=${enc(value)}`],
      expect: both({ ok: 200, check: end === 'first' ? listsBoth : listsNone }),
    },
    {
      route: 'GET /v1/notes',
      input: `created_before at ${label} (accepted)`,
      paths: () => [`/v1/notes?created_before=${enc(value)}`],
      expect: both({ ok: 200, check: end === 'first' ? listsNone : listsBoth }),
    },
    {
      route: 'GET /v1/notes',
      input: `a timestamp cursor at ${label} (accepted in Form B, whose format it is)`,
      paths: () => [`/v1/notes?cursor=${enc(value)}`],
      expect: {
        A: { error: 400, mentions: 'cursor' },
        B: { ok: 200, check: end === 'first' ? listsNone : listsBoth },
      },
    },
  ]),

  // ---- NUL characters are refused, naming the parameter
  {
    route: 'GET /v1/notes/search',
    input: 'a NUL character in q',
    paths: () => [`/v1/notes/search?q=${enc(NUL)}`],
    expect: both({ error: 400, mentions: 'q' }),
  },
  ...['cursor', 'platform', 'created_after', 'created_before'].map(
    (name): Row => ({
      route: 'GET /v1/notes',
      input: `a NUL character in ${name}`,
      paths: () => [`/v1/notes?${name}=${enc(NUL)}`],
      expect: both({ error: 400, mentions: name }),
    }),
  ),
  // Unknown query parameters are ignored (never read, never stored), whatever they hold.
  {
    route: 'GET /v1/notes',
    input: 'a NUL character in the value of an unknown query parameter (ignored)',
    paths: () => [`/v1/notes?foo=${enc(NUL)}`],
    expect: both({ ok: 200, sameAs: () => '/v1/notes', check: listsBoth }),
  },
  {
    route: 'GET /v1/notes',
    input: 'a NUL character in the name of an unknown query parameter (ignored)',
    paths: () => [`/v1/notes?${enc(NUL)}=1`],
    expect: both({ ok: 200, sameAs: () => '/v1/notes', check: listsBoth }),
  },
  {
    route: 'GET /v1/notes/:id',
    input: 'a NUL character in the note id',
    paths: () => [`/v1/notes/${enc(NUL)}`],
    expect: both({ error: 400, mentions: 'id' }),
  },
  {
    route: 'DELETE /v1/notes/:id',
    input: 'a NUL character in the note id (Form B: no such route)',
    paths: () => [`/v1/notes/${enc(NUL)}`],
    expect: { A: { error: 400, mentions: 'id' }, B: { error: 404 } },
  },
];

function title(row: Row, form: Form) {
  const outcome = row.expect[form];
  if ('ok' in outcome) return `${row.route} with ${row.input}: answered ${outcome.ok}`;
  const status = form === 'A' ? `${outcome.error} ${FORM_A_CODE[outcome.error]}` : `${outcome.error}`;
  return `${row.route} with ${row.input}: refused with ${status}${outcome.mentions ? ` naming ${outcome.mentions}` : ''}`;
}

describe.each(FORMS)('hostile input to the notes endpoints, Form %s', (form) => {
  for (const row of ROWS)
    it(title(row, form), async () => {
      const { id, notes } = accounts[form];
      const c: Ctx = { key: await keyForOneTest(id, form), notes, unknownId: randomUUID() };
      const method = row.route.split(' ')[0];
      const outcome = row.expect[form];
      const plain =
        'ok' in outcome && outcome.sameAs && (await app.request(outcome.sameAs(c), { key: c.key }));
      if (plain) expect(plain.status).toBe(200);
      await expectRowAnswers(
        form,
        outcome,
        row.paths(c),
        (path) => app.request(path, { method, key: c.key }),
        {
          plain,
          check: (res) => 'ok' in outcome && outcome.check?.(res, c),
        },
      );
      if (method !== 'DELETE') return;
      // A refused delete removed nothing: both notes are still there (read through Form A).
      const after = await app.request('/v1/notes', { key: c.key, form: 'A' });
      expect(listed(after)).toEqual([notes[1], notes[0]]);
    });
});
