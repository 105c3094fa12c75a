import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '../../server/api/root';
import { webhookEndpoints } from '../../server/db/schema';
import {
  expectRowAnswers,
  type Form,
  FORM_A_CODE,
  FORMS,
  PROTOTYPE_NAMES,
  spellings,
} from '../support/hostile-input';
import { startTestApp, type TestApp } from '../support/test-app';

// Hostile input to webhook endpoints, in two tables: the /v1 routes (list, register, delete, the
// delivery log) in both forms, and the settings app's create and edit. Each row is an input and
// what it must get; a refused request must leave the account's endpoints exactly as they were.
// The app has the production URL rules: the valid URLs here have a public numeric host, which
// needs no DNS. The ordinary bad input of these routes (missing url, bad events, private
// addresses, the 26th endpoint) is in webhooks-api.test.ts.

/** A URL the production rules accept without DNS: a public address. */
const PUBLIC_URL = 'https://93.184.216.34/hook';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

interface Ctx {
  key: string;
  /** The account's one endpoint, registered before the row's request. */
  endpointId: string;
  unknownId: string;
}

type Outcome =
  | { error: 400 | 404 | 422; mentions?: string }
  | {
      ok: 200 | 201;
      /** The answer must equal this request's answer (same key), the hostile part left out. */
      sameAs?: (c: Ctx) => string;
      /** What the account's endpoints must be afterwards (default: unchanged). */
      endpoints?: (c: Ctx) => unknown;
    };

interface Row {
  route:
    | 'GET /v1/webhooks'
    | 'POST /v1/webhooks'
    | 'DELETE /v1/webhooks/:id'
    | 'GET /v1/webhooks/:id/deliveries';
  /** The hostile input, in plain words. */
  input: string;
  /** The requests: each must get the row's answer (one, or several spellings of the input). */
  paths: (c: Ctx) => string[];
  body?: unknown;
  expect: Record<Form, Outcome>;
}

/** The account's endpoints as stored, oldest first. */
const endpointsOf = (accountId: string) =>
  app.db
    .select({
      id: webhookEndpoints.id,
      url: webhookEndpoints.url,
      events: webhookEndpoints.events,
      description: webhookEndpoints.description,
      active: webhookEndpoints.active,
    })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.accountId, accountId))
    .orderBy(asc(webhookEndpoints.createdAt));

const both = (outcome: Outcome): Record<Form, Outcome> => ({ A: outcome, B: outcome });
const enc = encodeURIComponent;

/** A Form A cursor (base64url of "<ms>:<id>") whose milliseconds fall after year 9999. */
const FORGED_CURSOR = Buffer.from(`999999999999999:${randomUUID()}`).toString('base64url');

/** Text PostgreSQL refuses: a NUL character (text), an unpaired UTF-16 surrogate (jsonb). */
const UNSTORABLE = [
  ['a NUL character', '\u0000'],
  ['an unpaired surrogate', '\ud800'],
] as const;

const PROTOTYPE_ROUTES: { route: Row['route']; path: (c: Ctx) => string; expect: Record<Form, Outcome> }[] = [
  {
    route: 'GET /v1/webhooks',
    path: () => '/v1/webhooks',
    expect: both({ ok: 200, sameAs: () => '/v1/webhooks' }),
  },
  {
    route: 'DELETE /v1/webhooks/:id',
    path: (c) => `/v1/webhooks/${c.unknownId}`,
    expect: both({ error: 404 }),
  },
  // Form A has no delivery log: 404 there too.
  {
    route: 'GET /v1/webhooks/:id/deliveries',
    path: (c) => `/v1/webhooks/${c.unknownId}/deliveries`,
    expect: both({ error: 404 }),
  },
];

const ROWS: Row[] = [
  // ---- query parameters named after Object.prototype's members are unknown parameters, ignored
  ...PROTOTYPE_ROUTES.flatMap(({ route, path, expect: outcome }) =>
    PROTOTYPE_NAMES.map(
      (name): Row => ({
        route,
        input: `a query parameter named ${name}, once, twice, bare or as an array${
          'ok' in outcome.A ? ' (ignored)' : ' on an unknown endpoint'
        }`,
        paths: (c) => spellings(name).map((q) => `${path(c)}?${q}`),
        expect: outcome,
      }),
    ),
  ),

  // ---- cursors
  {
    route: 'GET /v1/webhooks/:id/deliveries',
    input: 'a forged cursor past year 9999 (15-digit milliseconds), for an unknown endpoint',
    paths: (c) => [`/v1/webhooks/${c.unknownId}/deliveries?cursor=${FORGED_CURSOR}`],
    // Form B checks the parameters before it looks for the endpoint; Form A has no delivery log.
    expect: { A: { error: 404 }, B: { error: 400, mentions: 'cursor' } },
  },
  {
    route: 'GET /v1/webhooks/:id/deliveries',
    input: 'a forged cursor past year 9999 (15-digit milliseconds), for its own endpoint',
    paths: (c) => [`/v1/webhooks/${c.endpointId}/deliveries?cursor=${FORGED_CURSOR}`],
    expect: { A: { error: 404 }, B: { error: 400, mentions: 'cursor' } },
  },
  {
    route: 'GET /v1/webhooks/:id/deliveries',
    input: 'a NUL character in the cursor',
    paths: (c) => [`/v1/webhooks/${c.endpointId}/deliveries?cursor=${enc('a\u0000b')}`],
    expect: { A: { error: 404 }, B: { error: 400, mentions: 'cursor' } },
  },

  // ---- NUL characters and unpaired surrogates in a registration
  ...UNSTORABLE.flatMap(([label, bad]): Row[] => [
    {
      route: 'POST /v1/webhooks',
      input: `${label} in the URL's host`,
      paths: () => ['/v1/webhooks'],
      body: { url: `https://exa${bad}mple.com/hook` },
      expect: both({ error: 400, mentions: 'url' }),
    },
    {
      route: 'POST /v1/webhooks',
      input: `${label} in the URL's path`,
      paths: () => ['/v1/webhooks'],
      body: { url: `https://example.com/ho${bad}ok` },
      expect: both({ error: 400, mentions: 'url' }),
    },
    {
      route: 'POST /v1/webhooks',
      input: `${label} in the second event name`,
      paths: () => ['/v1/webhooks'],
      body: { url: PUBLIC_URL, events: ['meeting.started', `summary${bad}.ready`] },
      expect: both({ error: 400, mentions: 'events.1' }),
    },
    {
      route: 'POST /v1/webhooks',
      input: `${label} in a description (a field /v1 does not know)`,
      paths: () => ['/v1/webhooks'],
      body: { url: PUBLIC_URL, description: `Team${bad}hook` },
      expect: both({ error: 400, mentions: 'description' }),
    },
    {
      route: 'POST /v1/webhooks',
      input: `${label} in a field name`,
      paths: () => ['/v1/webhooks'],
      body: { url: PUBLIC_URL, [`x${bad}`]: 1 },
      expect: both({ error: 400, mentions: 'A field name' }),
    },
  ]),

  // ---- body fields named after Object.prototype's members are unknown fields, ignored
  {
    route: 'POST /v1/webhooks',
    input: 'the URL only inside a body field named __proto__ (so none given)',
    paths: () => ['/v1/webhooks'],
    body: JSON.parse(`{"__proto__":{"url":"${PUBLIC_URL}/proto"}}`),
    expect: both({ error: 400, mentions: 'url' }),
  },
  {
    route: 'POST /v1/webhooks',
    input: 'body fields named __proto__ and constructor beside the real ones (ignored)',
    paths: () => ['/v1/webhooks'],
    body: JSON.parse(
      `{"__proto__":{"url":"${PUBLIC_URL}/proto","events":["meeting.started"]},"constructor":{"x":1},"url":"${PUBLIC_URL}/real"}`,
    ),
    expect: both({
      ok: 201,
      endpoints: (c) => [
        expect.objectContaining({ id: c.endpointId }),
        expect.objectContaining({ url: `${PUBLIC_URL}/real`, events: ['meeting.completed'] }),
      ],
    }),
  },
];

function title(row: Row, form: Form) {
  const outcome = row.expect[form];
  if ('ok' in outcome) return `${row.route} with ${row.input}: answered ${outcome.ok}`;
  const status = form === 'A' ? `${outcome.error} ${FORM_A_CODE[outcome.error]}` : `${outcome.error}`;
  const named = outcome.mentions ? ` naming ${outcome.mentions}` : '';
  return `${row.route} with ${row.input}: refused with ${status}${named}, endpoints unchanged`;
}

describe.each(FORMS)('hostile input to the webhook endpoints, Form %s', (form) => {
  for (const row of ROWS)
    it(title(row, form), async () => {
      // An account of its own per row (Form B counts 100 requests per key per minute), with one endpoint.
      const { key, account } = await app.createAccount({ form });
      const registered = await app.request('/v1/webhooks', {
        method: 'POST',
        key,
        json: { url: PUBLIC_URL },
      });
      expect(registered.status, registered.text).toBe(201);
      const c: Ctx = { key, endpointId: registered.json.id, unknownId: randomUUID() };
      const before = await endpointsOf(account.id);

      const method = row.route.split(' ')[0];
      const outcome = row.expect[form];
      const plain = 'ok' in outcome && outcome.sameAs && (await app.request(outcome.sameAs(c), { key }));
      if (plain) expect(plain.status).toBe(200);
      const send = (path: string) =>
        app.request(path, { method, key, ...(row.body !== undefined && { json: row.body }) });
      await expectRowAnswers(form, outcome, row.paths(c), send, { plain });
      const expected = 'ok' in outcome && outcome.endpoints ? outcome.endpoints(c) : before;
      expect(await endpointsOf(account.id)).toEqual(expected);
    });
});

// ---- the settings app: registering and editing an endpoint

const ui = (accountId: string) =>
  createCaller({ db: app.db, services: app.services, accountId, clientAddress: null });

interface UiRow {
  procedure: 'create' | 'update';
  input: string;
  /** The procedure's input; `id` is the account's existing endpoint. */
  args: (id: string) => Record<string, unknown>;
  mentions: string;
}

const UI_ROWS: UiRow[] = UNSTORABLE.flatMap(([label, bad]): UiRow[] => [
  {
    procedure: 'create',
    input: `${label} in the URL`,
    args: () => ({ url: `${PUBLIC_URL}/a${bad}b`, events: ['meeting.completed'] }),
    mentions: 'url',
  },
  {
    procedure: 'create',
    input: `${label} in the description`,
    args: () => ({ url: `${PUBLIC_URL}/new`, events: ['meeting.completed'], description: `Team${bad}hook` }),
    mentions: 'description',
  },
  {
    procedure: 'create',
    input: `${label} in an event name`,
    args: () => ({ url: `${PUBLIC_URL}/new`, events: [`meeting${bad}.completed`] }),
    mentions: 'events.0',
  },
  {
    procedure: 'update',
    input: `${label} in the URL`,
    args: (id) => ({ id, url: `${PUBLIC_URL}/a${bad}b` }),
    mentions: 'url',
  },
  {
    procedure: 'update',
    input: `${label} in the description`,
    args: (id) => ({ id, description: `Team${bad}hook` }),
    mentions: 'description',
  },
  {
    procedure: 'update',
    input: `${label} in the description, beside a valid URL`,
    args: (id) => ({ id, url: `${PUBLIC_URL}/moved`, description: `Team${bad}hook` }),
    mentions: 'description',
  },
]);

describe('hostile input to webhook endpoints in the settings app', () => {
  it.each(UI_ROWS.map((row) => [`webhooks.${row.procedure} with ${row.input}`, row] as const))(
    '%s: refused as a bad request naming the field, endpoints unchanged',
    async (_name, row) => {
      const { account } = await app.createAccount();
      const caller = ui(account.id);
      const { endpoint } = await caller.webhooks.create({
        url: PUBLIC_URL,
        events: ['meeting.completed'],
        description: 'Existing',
      });
      const before = await endpointsOf(account.id);
      const call = (caller.webhooks[row.procedure] as (input: unknown) => Promise<unknown>)(
        row.args(endpoint.id),
      );
      await expect(call).rejects.toSatisfy(
        (err: unknown) =>
          err instanceof TRPCError &&
          err.code === 'BAD_REQUEST' &&
          err.message.includes(row.mentions) &&
          err.message.includes('must not contain NUL characters or unpaired surrogates'),
      );
      expect(await endpointsOf(account.id)).toEqual(before);
    },
  );
});
