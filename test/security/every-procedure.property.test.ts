import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import fc from 'fast-check';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApiKey, findAccountByEmail, usableKey } from '../../server/accounts/accounts';
import { appRouter } from '../../server/api/root';
import { apiKeys, deliveries, meetings, webhookEndpoints } from '../../server/db/schema';
import { TRPC_MAX_BODY_BYTES } from '../../server/api/trpc-handler';
import { createUiRouter, publicProcedure } from '../../server/api/trpc';
import { parseEnv } from '../../server/env';
import { ERROR_CODES } from '../../server/errors';
import { restProcedure, router as restRouter } from '../../server/http/openapi-trpc';
import { serveNode } from '../../server/http/serve-node';
import { FORM_A_STATUS } from '../../server/rest/form-a/errors';
import { FORM_B_STATUS } from '../../server/rest/form-b/errors';
import { FORMS } from '../../server/rest/forms';
import { createServices } from '../../server/services';
import { BrowserSession, type HttpAnswer } from '../support/browser-session';
import { linkIn, newestMailTo, startSmtpCapture } from '../support/smtp-capture';
import { startTestApp, type TestApp } from '../support/test-app';
import {
  holdsUnstorableText,
  inputFor,
  jsonText,
  type KnownValues,
  paramTexts,
  RawJson,
  type Room,
  type Target,
  targetName,
  targetsOf,
} from './hostile-values';
import {
  countProceduresInTree,
  everyRestRoute,
  everyRestRouter,
  type RestRoute,
  type RouterLike,
  restRoutes,
  SURFACE_PREFIX,
  type TrpcProcedure,
  trpcProcedures,
} from './procedures';

// Every procedure the service answers, found by walking its routers (the settings app's tRPC,
// every /v1 operation of every form, the recorder's routes), each field of its input attacked
// in turn with hostile values (NUL, lone surrogates, huge strings, deep nesting, wrong types,
// prototype keys, numbers JSON cannot hold, dates out of range) beside valid-looking ones, over
// real HTTP against the real handlers and database, as the account's owner, an operator and
// nobody (tRPC), or with a Form A key, a Form B key and none (REST). The properties: never a
// 5xx; every error in its surface's shape; no stack trace in any body; a string PostgreSQL
// refuses is a 400 that says so. A procedure added later is attacked without editing this file.
//
// It runs with a fixed seed and with a random one it prints; FUZZ_SEED=<seed> replays that one,
// FUZZ_RUNS=<n> attacks each field n times per seed instead of once.

const FIXED_SEED = 20_260_214;
const RANDOM_SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : (Date.now() ^ (Math.random() * 2 ** 31)) >>> 0;
const RUNS_PER_TARGET = Number(process.env.FUZZ_RUNS ?? 1);
const SEEDS = [
  ['fixed', FIXED_SEED],
  ['random', RANDOM_SEED],
] as const;

const OPERATOR = 'ops@example.com';
const OWNER = 'owner@example.com';
const PASSWORD = 'quiet-harbor-lantern-71';
const REFUSED_TEXT = 'must not contain NUL characters or unpaired surrogates';
// A stack's frames ("at fn (file.ts:1:2)", a line "    at file.js:3:4", raw or JSON-escaped) or
// a serialized error's stack.
const STACK_TRACE = /(\n|\\n)\s+at |"stack"|\bat \S+ \(\S+:\d+:\d+\)/;

const TRPC = trpcProcedures(appRouter as unknown as RouterLike);
const REST = everyRestRoute();

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;

type IdentityName = 'owner' | 'operator' | 'anonymous';
interface Identity {
  name: IdentityName;
  email: string | null;
  session: BrowserSession;
}
const identities: Identity[] = [];
let trpcKnown: KnownValues;
let restKnown: KnownValues;
const FRESH_MEETING = '{fresh-meeting}';
const rest = { keyA: '', keysB: [] as string[], turn: 0 };
const owned = { recorderKey: '', recorderKeyId: '' };

async function signIn(email: string): Promise<BrowserSession> {
  const session = new BrowserSession(app.url);
  const signed = await session.signIn(email, PASSWORD);
  if (signed.status !== 200 || signed.error)
    throw new Error(`sign-in of ${email}: ${signed.status} ${signed.text}`);
  return session;
}

/** An account made as anyone makes one: sign-up, the emailed link opened, then sign-in. */
async function signedUpThroughTheMailbox(email: string): Promise<BrowserSession> {
  const browser = new BrowserSession(app.url, { 'x-forwarded-for': '198.51.100.7' });
  expect((await browser.mutate('account.signUp', { email, password: PASSWORD })).status).toBe(200);
  const welcome = newestMailTo(smtp.mails, email, 'Welcome to Meeting Notes');
  if (!welcome) throw new Error(`no welcome mail to ${email}`);
  const token = linkIn(welcome, '/verify-email').searchParams.get('token');
  expect((await browser.mutate('account.verifyEmail', { token })).status).toBe(200);
  return signIn(email);
}

beforeAll(async () => {
  smtp = await startSmtpCapture();
  // Webhook hosts resolve here, to one public address, without any DNS query leaving the machine;
  // no worker runs, so nothing is ever delivered.
  const resolve = async (host: string) =>
    host.endsWith('.test') ? [] : [{ address: '93.184.216.34', family: 4 as const }];
  app = await startTestApp({
    env: { ADMIN_EMAILS: OPERATOR, SMTP_URL: `smtp://127.0.0.1:${smtp.port}` },
    services: { webhooks: { ...createServices(parseEnv({}), () => {}, { resolve }).webhooks } },
  });

  const operator = await signedUpThroughTheMailbox(OPERATOR);
  expect((await operator.query('account.get')).json.result.data.operator).toBe(true);
  const owner = await signedUpThroughTheMailbox(OWNER);
  identities.push(
    { name: 'owner', email: OWNER, session: owner },
    { name: 'operator', email: OPERATOR, session: operator },
    { name: 'anonymous', email: null, session: new BrowserSession(app.url) },
  );

  // The owner's records, for valid-looking ids: notes, keys, endpoints and a delivery (made by
  // replenish). The key that records the notes is kept out of the ids the attack may revoke.
  const recorder = await owner.mutate('keys.create', { name: 'recorder', form: 'A' });
  expect(recorder.status).toBe(200);
  owned.recorderKey = recorder.json.result.data.plaintext;
  owned.recorderKeyId = recorder.json.result.data.key.id;
  const ownerAccount = await findAccountByEmail(app.db, OWNER);
  const operatorAccount = await findAccountByEmail(app.db, OPERATOR);
  trpcKnown = {
    ids: {
      note: ['', ''],
      key: ['', ''],
      webhook: ['', ''],
      delivery: [''],
      account: [ownerAccount?.id ?? '', operatorAccount?.id ?? ''],
    },
    emails: [OWNER, OPERATOR, 'someone@example.com'],
  };

  // The API's account: a Form A key and several Form B keys (100 requests a minute each).
  const api = await app.createAccount({ form: 'A', plan: 'enterprise', dailyLimit: 1_000_000 });
  rest.keyA = api.key;
  for (let i = 0; i < 6; i++)
    rest.keysB.push((await createApiKey(app.db, { accountId: api.account.id, form: 'B' })).plaintext);
  restKnown = { ids: { note: ['', ''], webhook: [''], meeting: [FRESH_MEETING, FRESH_MEETING] }, emails: [] };
  await replenish();
}, 120_000);

const SUMMARY = {
  context: 'c',
  decisions: ['d'],
  action_items: [{ task: 't', owner: null, deadline: null }],
  participants: ['Ana'],
  next_step: null,
  budget_mentioned: null,
  sentiment: null,
};

/** A settings-app call as the owner, signed in again if an attacked call ended the session. */
async function asOwner(type: 'query' | 'mutation', path: string, input?: unknown) {
  const owner = identities[0];
  if (!owner?.email) throw new Error('no owner');
  const send = () =>
    type === 'query' ? owner.session.query(path, input) : owner.session.mutate(path, input);
  let res = await send();
  if (res.status === 401) {
    owner.session = await signIn(owner.email);
    res = await send();
  }
  return res;
}

const gone = async (table: typeof meetings | typeof webhookEndpoints | typeof deliveries, id: string) =>
  id === '' || (await app.db.select({ id: table.id }).from(table).where(eq(table.id, id))).length === 0;

/** Makes a record with `make`; when a cap refuses it, removes one record the ids do not name and tries again. */
async function makeWithRoom(
  make: () => Promise<string | null>,
  makeRoom: () => Promise<void>,
): Promise<string> {
  const made = (await make()) ?? (await makeRoom().then(make));
  if (!made) throw new Error('could not make a record for the attack to refer to');
  return made;
}

/**
 * The attack deletes and revokes what the ids name (that is part of it): before the next
 * procedure, every id names a live record again, so valid-looking calls reach real ones.
 */
async function replenish() {
  const ids = trpcKnown.ids as Record<'note' | 'key' | 'webhook' | 'delivery', string[]>;
  for (const [i, id] of ids.note.entries())
    if (await gone(meetings, id)) ids.note[i] = await app.recordNote(owned.recorderKey, { summary: SUMMARY });
  for (const [i, id] of ids.key.entries()) {
    const usable =
      id !== '' &&
      (
        await app.db
          .select({ id: apiKeys.id })
          .from(apiKeys)
          .where(and(eq(apiKeys.id, id), usableKey()))
      ).length > 0;
    if (usable) continue;
    ids.key[i] = await makeWithRoom(
      async () => {
        const res = await asOwner('mutation', 'keys.create', { name: `spare ${i}`, form: 'A' });
        return res.status === 200 ? (res.json.result.data.key.id as string) : null;
      },
      async () => {
        const listed = (await asOwner('query', 'keys.list')).json.result.data as { id: string }[];
        const spare = listed.find((k) => !ids.key.includes(k.id) && k.id !== owned.recorderKeyId);
        if (spare) await asOwner('mutation', 'keys.revoke', { id: spare.id });
      },
    );
  }
  for (const [i, id] of ids.webhook.entries()) {
    if (!(await gone(webhookEndpoints, id))) continue;
    ids.webhook[i] = await makeWithRoom(
      async () => {
        const res = await asOwner('mutation', 'webhooks.create', {
          url: `https://hooks.example.com/owner-${i}`,
          events: ['meeting.completed', 'summary.ready'],
        });
        return res.status === 200 ? (res.json.result.data.endpoint.id as string) : null;
      },
      async () => {
        const listed = (await asOwner('query', 'webhooks.list')).json.result.data as { id: string }[];
        const spare = listed.find((e) => !ids.webhook.includes(e.id));
        if (spare) await asOwner('mutation', 'webhooks.delete', { id: spare.id });
      },
    );
  }
  if (await gone(deliveries, ids.delivery[0] ?? '')) {
    const endpoint = ids.webhook[0];
    expect((await asOwner('mutation', 'webhooks.sendTest', { id: endpoint })).status).toBe(200);
    ids.delivery[0] = (
      await asOwner('query', 'webhooks.deliveries', { id: endpoint })
    ).json.result.data.items[0].id;
  }

  const api = restKnown.ids as Record<'note' | 'webhook' | 'meeting', string[]>;
  for (const [i, id] of api.note.entries())
    if (await gone(meetings, id)) api.note[i] = await app.recordNote(rest.keyA, { summary: SUMMARY });
  api.meeting = [FRESH_MEETING, FRESH_MEETING, ...api.note];
  for (const [i, id] of api.webhook.entries()) {
    if (!(await gone(webhookEndpoints, id))) continue;
    api.webhook[i] = await makeWithRoom(
      async () => {
        const res = await app.request('/v1/webhooks', {
          method: 'POST',
          key: rest.keyA,
          json: { url: `https://hooks.example.com/api-${i}` },
        });
        return res.status === 201 ? (res.json.id as string) : null;
      },
      async () => {
        const listed = (await app.request('/v1/webhooks', { key: rest.keyA })).json.data as { id: string }[];
        const spare = listed.find((e) => !api.webhook.includes(e.id));
        if (spare) await app.request(`/v1/webhooks/${spare.id}`, { method: 'DELETE', key: rest.keyA });
      },
    );
  }
}

afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

/** What each procedure got, for the closing checks: calls, calls past authentication, successes. */
const tally = new Map<string, { calls: number; pastAuth: number; succeeded: number }>();
const sessions = { signedInCalls: 0, unauthenticated: 0, signInsAgain: 0 };
function count(name: string, status: number, signedIn: boolean) {
  const entry = tally.get(name) ?? { calls: 0, pastAuth: 0, succeeded: 0 };
  entry.calls++;
  if (signedIn && status !== 401 && status !== 403) entry.pastAuth++;
  if (status < 300) entry.succeeded++;
  tally.set(name, entry);
}
const routeName = (r: RestRoute) =>
  `${r.surface === 'v1' ? `v1 Form ${r.form}` : 'recorder'} ${r.method} ${r.path}`;

let clients = 0;
/** A client address per call, so the sign-up and reset throttles by address rarely bite. */
const nextClientAddress = () => {
  const n = ++clients;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

// ---------------------------------------------------------------------------------------------
// The settings app's tRPC

function sendTrpc(session: BrowserSession, procedure: TrpcProcedure, text: string | undefined) {
  const headers: Record<string, string> = { 'x-forwarded-for': nextClientAddress() };
  if (procedure.type === 'query') {
    const query = text === undefined ? '' : `?input=${encodeURIComponent(text)}`;
    return session.request(`/api/trpc/${procedure.path}${query}`, { headers });
  }
  return session.request(`/api/trpc/${procedure.path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    ...(text !== undefined && { body: text }),
  });
}

/** tRPC's envelope and the properties every answer must have; `sent` is the input's JSON text. */
function checkTrpcAnswer(res: HttpAnswer, path: string, sent: string | undefined, what: string) {
  expect(res.status, what).toBeLessThan(500);
  expect(res.text, what).not.toMatch(STACK_TRACE);
  expect(res.json, what).toBeDefined();
  if (res.status < 400) {
    expect(res.json, what).toEqual({ result: expect.anything() });
  } else {
    expect(res.json, what).toEqual({
      error: {
        message: expect.any(String),
        code: expect.any(Number),
        data: expect.objectContaining({ code: expect.any(String), httpStatus: res.status }),
      },
    });
    expect(
      Object.keys(res.json.error.data).every((k) => ['code', 'httpStatus', 'path'].includes(k)),
      what,
    ).toBe(true);
    if ('path' in res.json.error.data) expect(res.json.error.data.path, what).toBe(path);
    expect(res.json.error.message.length, what).toBeGreaterThan(0);
  }
  // A body over the cap cannot be read, so a procedure that needs no input (or a session first)
  // answers as if there were none.
  const readable = sent !== undefined && Buffer.byteLength(sent) <= TRPC_MAX_BODY_BYTES;
  if (readable && res.status !== 413 && holdsUnstorableText(JSON.parse(sent))) {
    expect({ status: res.status, message: res.json.error?.message }, what).toEqual({
      status: 400,
      message: expect.stringContaining(REFUSED_TEXT),
    });
  }
}

async function callTrpc(identity: Identity, procedure: TrpcProcedure, input: unknown) {
  const text = input === undefined ? undefined : jsonText(input);
  let res = await sendTrpc(identity.session, procedure, text);
  if (identity.email) {
    // A 401 to a signed-in browser: some call ended its sessions (sign out everywhere). Sign in
    // again and repeat the call, so that later calls still run authenticated.
    if (res.status === 401) {
      sessions.signInsAgain++;
      identity.session = await signIn(identity.email);
      res = await sendTrpc(identity.session, procedure, text);
    }
    sessions.signedInCalls++;
    if (res.status === 401) sessions.unauthenticated++;
  }
  count(`trpc ${procedure.path}`, res.status, identity.email !== null);
  const what = `${identity.name} ${procedure.type} ${procedure.path} ${(text ?? '').slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;
  checkTrpcAnswer(res, procedure.path, text, what);
}

// ---------------------------------------------------------------------------------------------
// /v1 and the recorder

/** Percent-encodes a path segment byte by byte; a lone surrogate goes as the bytes UTF-8 gives it. */
const encodeSegment = (v: string) =>
  [...Buffer.from(v, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

const dropProtoKeys = (key: string, value: unknown) => (key === '__proto__' ? undefined : value);

interface RestCall {
  input: Record<string, unknown> | unknown;
  idempotencyKey: string | null;
}

async function resolvePathParam(value: string): Promise<string> {
  if (value !== FRESH_MEETING) return value;
  const created = await app.request('/api/recorder/meetings', {
    method: 'POST',
    key: rest.keyA,
    json: { platform: 'zoom' },
  });
  return created.json.id as string;
}

async function callRest(route: RestRoute, credential: 'A' | 'B' | 'none', call: RestCall) {
  const input = call.input;
  const fields =
    input !== null && typeof input === 'object' && !Array.isArray(input) && !(input instanceof RawJson)
      ? (input as Record<string, unknown>)
      : {};
  let path = route.path;
  for (const name of route.pathParams) {
    const text = paramTexts(fields[name])[0] ?? 'x';
    // An empty or all-dots segment would make another path (fetch resolves dot segments).
    const segment = /^\.*$/.test(text) ? `${text} ` : text;
    path = path.replace(`{${name}}`, encodeSegment(await resolvePathParam(segment)));
  }
  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  const search = new URLSearchParams();
  if (!hasBody)
    for (const [name, value] of Object.entries(fields))
      if (!route.pathParams.includes(name)) for (const text of paramTexts(value)) search.append(name, text);
  let body: string | undefined;
  if (hasBody) {
    const bodyValue =
      input === fields
        ? Object.fromEntries(Object.entries(fields).filter(([k]) => !route.pathParams.includes(k)))
        : input;
    body = bodyValue === undefined ? '' : jsonText(bodyValue);
  }
  const query = search.toString();
  const url = `${SURFACE_PREFIX[route.surface]}${path}${query ? `?${query}` : ''}`;
  const key =
    credential === 'A'
      ? rest.keyA
      : credential === 'B'
        ? rest.keysB[rest.turn++ % rest.keysB.length]
        : undefined;
  const headers: Record<string, string> = {};
  if (hasBody) headers['content-type'] = 'application/json';
  if (call.idempotencyKey !== null) headers['idempotency-key'] = call.idempotencyKey;
  const res = await app.request(url, {
    method: route.method,
    headers,
    ...(key && { key }),
    ...(route.surface === 'v1' && { form: route.form }),
    ...(body !== undefined && { body }),
  });
  count(routeName(route), res.status, key !== undefined);
  const what = `${credential} key ${route.method} ${url.slice(0, 300)} ${(body ?? '').slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;

  expect(res.status, what).toBeLessThan(500);
  expect(res.headers.get('x-request-id'), what).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('cache-control'), what).toBe('no-store');
  expect(res.text, what).not.toMatch(STACK_TRACE);
  if (res.status === 204) {
    expect(res.text, what).toBe('');
    return;
  }
  expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
  expect(res.json, what).toBeDefined();
  if (res.status >= 400) {
    if (route.form === 'A' || route.surface === 'recorder') {
      expect(res.json, what).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
      expect(ERROR_CODES, what).toContain(res.json.error.code);
      expect(FORM_A_STATUS[res.json.error.code as keyof typeof FORM_A_STATUS], what).toBe(res.status);
      expect(res.json.error.message.length, what).toBeGreaterThan(0);
    } else {
      expect(res.json, what).toEqual({ error: expect.any(String) });
      expect(Object.values(FORM_B_STATUS), what).toContain(res.status);
      expect(res.json.error.length, what).toBeGreaterThan(0);
    }
  }

  // A string PostgreSQL refuses in the body or in one of the route's own parameters, once the key
  // has let the request in, is a 400 that says so.
  const own = Object.keys(route.input?.properties ?? {}).filter((n) => !route.pathParams.includes(n));
  const repeated = own.some((n) => search.getAll(n).length > 1);
  let unstorable = !hasBody && !repeated && own.some((n) => holdsUnstorableText(search.get(n) ?? ''));
  if (hasBody && body) {
    // Parsed as the API parses it: a reviver drops `__proto__` keys (and, recursing, gives up on
    // nesting deeper than the stack, which the API answers as a body that is not JSON).
    let parsed: unknown;
    try {
      parsed = JSON.parse(body, dropProtoKeys);
    } catch {
      parsed = undefined;
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      for (const name of route.pathParams) delete (parsed as Record<string, unknown>)[name];
      unstorable = holdsUnstorableText(parsed);
    }
  }
  // An Idempotency-Key that is no such key is refused before the body is looked at.
  const badIdempotencyKey =
    call.idempotencyKey !== null && !/^[\x21-\x7e][\x20-\x7e]{0,254}$/.test(call.idempotencyKey.trim());
  if (unstorable && !badIdempotencyKey && ![401, 403, 409, 413, 429].includes(res.status)) {
    const message = res.json.error?.message ?? res.json.error;
    expect({ status: res.status, message }, what).toEqual({
      status: 400,
      message: expect.stringContaining(REFUSED_TEXT),
    });
  }
}

// ---------------------------------------------------------------------------------------------

/** One fast-check property per attacked field, all with the seed given (so the seed replays all). */
async function attackEachTarget(
  targets: Target[],
  arbitraryFor: (target: Target) => fc.Arbitrary<unknown>,
  check: (value: unknown) => Promise<void>,
  seed: number,
  runs = RUNS_PER_TARGET,
) {
  for (const target of targets) {
    await fc.assert(
      fc.asyncProperty(arbitraryFor(target), async (value) => {
        await check(value);
      }),
      {
        seed,
        // Text with NUL or a lone surrogate is what most often reaches a query: it gets three runs.
        numRuns: 'field' in target && target.taint ? 3 * runs : runs,
        endOnFailure: true,
        // fast-check prints the whole counterexample, huge strings and all: the first of it is enough.
        asyncReporter: async (details) => {
          if (!details.failed) return;
          const cause =
            details.errorInstance instanceof Error
              ? details.errorInstance.message
              : String(details.errorInstance);
          throw new Error(
            `${targetName(target)} attacked, seed ${details.seed}, path ${details.counterexamplePath}:\n${cause.slice(0, 3000)}\ncounterexample: ${fc.stringify(details.counterexample).slice(0, 1500)}`,
          );
        },
      },
    );
  }
}

const roomOfRoute = (route: RestRoute): Room =>
  route.method === 'GET' || route.method === 'DELETE'
    ? 'url'
    : route.surface === 'recorder'
      ? 'large-body'
      : 'body';

describe.each(SEEDS)('every procedure, attacked field by field (%s seed %d)', (kind, seed) => {
  afterEach(replenish, 60_000);

  it(`prints the ${kind} seed`, () => {
    console.log(
      `every-procedure ${kind} seed: ${seed} (replay: FUZZ_SEED=${seed} npx vitest run test/security/every-procedure.property.test.ts)`,
    );
    expect(Number.isInteger(seed)).toBe(true);
  });

  it.each(TRPC.map((p) => [p.path, p] as const))(
    'tRPC %s: never a 5xx, errors in tRPC’s envelope, no stack, refused text named (owner, operator, anonymous)',
    async (_path, procedure) => {
      if (procedure.type === 'subscription')
        throw new Error(`${procedure.path} is a subscription: teach this test to call it`);
      const room: Room = procedure.type === 'query' ? 'url' : 'body';
      await attackEachTarget(
        targetsOf(procedure.input),
        (target) => inputFor(procedure.input, target, { known: trpcKnown, scope: procedure.path, room }),
        async (input) => {
          for (const identity of identities) await callTrpc(identity, procedure, input);
        },
        seed,
      );
    },
    120_000,
  );

  it.each(REST.map((r) => [routeName(r), r] as const))(
    '%s: never a 5xx, errors exactly in the form’s shape, no stack, refused text named (Form A key, Form B key, none)',
    async (_name, route) => {
      const room = roomOfRoute(route);
      await attackEachTarget(
        targetsOf(route.input),
        (target) =>
          fc.record({
            input: inputFor(route.input, target, { known: restKnown, scope: route.path, room }, (field) =>
              route.pathParams.includes(field) ? 'url' : room,
            ),
            idempotencyKey:
              route.surface === 'recorder'
                ? fc.option(fc.constantFrom('fuzz-once', 'fuzz-again', 'k'.repeat(256), ' '), { freq: 3 })
                : fc.constant(null),
          }),
        async (call) => {
          for (const credential of ['A', 'B', 'none'] as const)
            await callRest(route, credential, call as RestCall);
        },
        seed,
      );
    },
    120_000,
  );
});

describe('what the attack reached', () => {
  afterAll(() => {
    const v1 = (form: string) => REST.filter((r) => r.surface === 'v1' && r.form === form).length;
    console.log(
      `every-procedure: covered ${TRPC.length} tRPC procedures and ${REST.length} REST routes ` +
        `(${Object.keys(FORMS)
          .map((f) => `v1 Form ${f} ${v1(f)}`)
          .join(', ')}, recorder ${REST.filter((r) => r.surface === 'recorder').length}); ` +
        `${[...tally.values()].reduce((n, t) => n + t.calls, 0)} calls; ` +
        `${sessions.signedInCalls - sessions.unauthenticated} of ${sessions.signedInCalls} signed-in calls authenticated ` +
        `(signed in again ${sessions.signInsAgain} times); never a success: ` +
        ([...tally]
          .filter(([, t]) => t.succeeded === 0)
          .map(([name]) => name)
          .join(', ') || 'none'),
    );
  });

  it('every procedure and route was called, and got past authentication', () => {
    const names = [...TRPC.map((p) => `trpc ${p.path}`), ...REST.map(routeName)];
    const missed = names.filter((n) => !(tally.get(n)?.pastAuth ?? 0));
    expect(missed).toEqual([]);
    // Most calls exercise more than the validation: the valid-looking values get through.
    const succeeded = names.filter((n) => (tally.get(n)?.succeeded ?? 0) > 0);
    expect(succeeded.length).toBeGreaterThanOrEqual(Math.ceil(names.length / 2));
  });

  it('the signed-in browsers stayed signed in: nearly every one of their calls ran authenticated', () => {
    expect(sessions.signedInCalls).toBeGreaterThan(TRPC.length * 2);
    expect(sessions.unauthenticated).toBeLessThanOrEqual(sessions.signedInCalls * 0.02);
  });
});

describe('NUL and lone surrogates are refused before any procedure sees them', () => {
  it('webhooks.create and webhooks.update (description), admin.accounts (search) and admin.createAccount (name): 400 naming the field, nothing stored', async () => {
    const [owner, operator] = identities;
    if (!owner || !operator) throw new Error('no sessions');
    for (const bad of ['a\u0000b', 'a\ud800b']) {
      const cases: [Identity, 'query' | 'mutation', string, unknown, string][] = [
        [
          owner,
          'mutation',
          'webhooks.create',
          { url: 'https://hooks.example.com/nul', events: ['meeting.completed'], description: bad },
          'description',
        ],
        [
          owner,
          'mutation',
          'webhooks.update',
          { id: trpcKnown.ids.webhook?.[0], description: bad },
          'description',
        ],
        [operator, 'query', 'admin.accounts', { search: bad }, 'search'],
        [operator, 'mutation', 'admin.createAccount', { email: 'nul-name@example.com', name: bad }, 'name'],
        [owner, 'mutation', 'keys.create', { name: 'ok', form: 'A', extra: { deep: [bad] } }, 'extra.deep.0'],
      ];
      for (const [identity, type, path, input, field] of cases) {
        const res = await sendTrpc(identity.session, { path, type, input: null }, JSON.stringify(input));
        expect({ path, status: res.status, body: res.json }).toEqual({
          path,
          status: 400,
          body: {
            error: {
              message: `${field} must not contain NUL characters or unpaired surrogates`,
              code: expect.any(Number),
              data: { code: 'BAD_REQUEST', httpStatus: 400, path },
            },
          },
        });
      }
    }
    expect(await findAccountByEmail(app.db, 'nul-name@example.com')).toBeFalsy();
    const endpoints = (await asOwner('query', 'webhooks.list')).json.result.data as { url: string }[];
    expect(endpoints.map((e) => e.url)).not.toContain('https://hooks.example.com/nul');
  });

  it('/v1 in both forms and the recorder: 400 naming the parameter or body field, in the form’s shape', async () => {
    const nul = encodeURIComponent('a\u0000b');
    const search = await app.request(`/v1/notes/search?q=${nul}`, { key: rest.keyA });
    expect({ status: search.status, body: search.json }).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message: 'q must not contain NUL characters or unpaired surrogates',
        },
      },
    });
    const formB = await app.request(`/v1/notes?cursor=${nul}`, { key: rest.keysB[0], form: 'B' });
    expect({ status: formB.status, body: formB.json }).toEqual({
      status: 400,
      body: { error: 'cursor must not contain NUL characters or unpaired surrogates' },
    });
    const recorder = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key: rest.keyA,
      json: { platform: 'zoom', title: 'Sync', notes: { 'a\ud800': 1 } },
    });
    expect({ status: recorder.status, body: recorder.json }).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message: 'A field name in notes must not contain NUL characters or unpaired surrogates',
        },
      },
    });
  });
});

describe('the enumeration follows the routers', () => {
  it('holds every procedure reachable: as many as the routers’ trees hold, each answered over HTTP, the /v1 operations those of the published documents', async () => {
    expect(TRPC.length).toBe(countProceduresInTree(appRouter as unknown as RouterLike));
    expect(TRPC.length).toBeGreaterThan(0);
    expect(REST.length).toBe(everyRestRouter().reduce((n, r) => n + countProceduresInTree(r), 0));
    expect(REST.length).toBeGreaterThan(0);
    for (const form of Object.keys(FORMS)) {
      const doc = (await app.request(`/api/openapi.json?form=${form}`)).json as {
        paths: Record<string, Record<string, unknown>>;
      };
      const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
      const enumerated = REST.filter((r) => r.surface === 'v1' && r.form === form).map(
        (r) => `${r.method} ${r.path}`,
      );
      expect(enumerated.sort()).toEqual(documented.sort());
    }
    // tRPC answers NOT_FOUND for a path it has no procedure for, and never for one it has.
    const anonymous = new BrowserSession(app.url);
    expect((await anonymous.query('account.noSuchProcedure')).json.error.data.code).toBe('NOT_FOUND');
    for (const procedure of TRPC) {
      const res = await sendTrpc(anonymous, procedure, undefined);
      expect({ path: procedure.path, code: res.json.error?.data?.code }).not.toEqual({
        path: procedure.path,
        code: 'NOT_FOUND',
      });
    }
  });

  it('a procedure added to the settings app’s routers is enumerated with its fields, without editing this test', () => {
    const extended = createUiRouter({
      ...appRouter._def.record,
      probe: createUiRouter({
        store: publicProcedure.input(z.object({ note: z.string() })).mutation(() => 1),
      }),
    });
    const procedures = trpcProcedures(extended as unknown as RouterLike);
    expect(procedures.length).toBe(TRPC.length + 1);
    expect(countProceduresInTree(extended as unknown as RouterLike)).toBe(TRPC.length + 1);
    const probe = procedures.find((p) => p.path === 'probe.store');
    expect(probe).toMatchObject({ type: 'mutation', input: { properties: { note: { type: 'string' } } } });
    expect(targetsOf(probe?.input ?? null).map(targetName)).toEqual([
      '(valid-looking)',
      'note (NUL or lone surrogate)',
      'note',
      '(extra key)',
      '(whole input)',
    ]);
  });

  it('a route added to a form’s router is enumerated with its path parameters, without editing this test', () => {
    const formA = FORMS.A.router as unknown as RouterLike;
    const extended = restRouter({
      ...FORMS.A.router._def.record,
      probe: restProcedure
        .meta({ openapi: { method: 'POST', path: '/probes/{id}' } })
        .input(z.object({ id: z.string(), note: z.string() }))
        .output(z.object({}))
        .mutation(() => ({})),
    });
    const routes = restRoutes(extended as unknown as RouterLike, 'v1', 'A');
    expect(routes.length).toBe(restRoutes(formA, 'v1', 'A').length + 1);
    expect(routes.find((r) => r.procedure === 'probe')).toMatchObject({
      method: 'POST',
      path: '/probes/{id}',
      pathParams: ['id'],
    });
  });

  it('a procedure added with no check of its own is covered: one that fails on NUL as the database does answers 400 naming the field, never 500', async () => {
    // What a procedure written without thinking of NUL does: hand the text to PostgreSQL, which
    // refuses it and the procedure fails with a 500.
    const extended = createUiRouter({
      probe: createUiRouter({
        store: publicProcedure
          .input(z.object({ note: z.string(), tags: z.array(z.string()).optional() }))
          .mutation(({ input }) => {
            if (holdsUnstorableText(input))
              throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
            return { stored: true };
          }),
      }),
    });
    const [probe] = trpcProcedures(extended as unknown as RouterLike);
    if (!probe) throw new Error('the probe router has no procedure');
    const server = await serveNode(
      () => (req) =>
        fetchRequestHandler({
          endpoint: '/api/trpc',
          req,
          router: extended,
          createContext: () => ({ db: app.db, services: app.services, accountId: null, clientAddress: null }),
        }),
    );
    try {
      const browser = new BrowserSession(server.url);
      let refused = 0;
      await attackEachTarget(
        targetsOf(probe.input),
        (target) => inputFor(probe.input, target, { known: trpcKnown, scope: probe.path, room: 'body' }),
        async (input) => {
          const text = input === undefined ? undefined : jsonText(input);
          const res = await sendTrpc(browser, probe, text);
          checkTrpcAnswer(
            res,
            probe.path,
            text,
            `${text?.slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`,
          );
          if (res.status === 400 && res.json.error.message.includes(REFUSED_TEXT)) refused++;
        },
        FIXED_SEED,
        10,
      );
      expect((await sendTrpc(browser, probe, JSON.stringify({ note: 'a\u0000b' }))).json.error.message).toBe(
        'note must not contain NUL characters or unpaired surrogates',
      );
      expect(refused).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
