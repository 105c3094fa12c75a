import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { recordNote } from '../test/support/recorder';
import { runCommand } from '../test/support/run-command';
import { Receiver } from '../test/support/webhook-receiver';
import { demoLogin, readState } from './state';

// The typed client of docs/api.md#typed-client. Types are generated with openapi-typescript from
// the documents `npm start` serves, a client written against them with openapi-fetch is
// type-checked (strict, zero diagnostics), and that same client then runs the documented flows
// against the server in each form: list and page to the end, get, search, webhooks, delete, and
// each documented error with its typed `error` object. Everything generated goes to os.tmpdir().

const root = path.resolve(import.meta.dirname, '..');
const state = readState();
const apiKey = () => (state.database === 'pglite' ? demoLogin(state).apiKey : state.accounts.main!.api_key);
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

// The flows, as a developer writes them after the three lines that set the client up there. Each client is checked
// against its form's generated `paths` and then run; `typeOnly` is never run: its
// expect-error directives fail the check if the generated types stop refusing what a form lacks.
const CLIENT_A = `
import createClient from 'openapi-fetch';
import type { components, paths } from './meeting-notes-a';

type NoteList = components['schemas']['NoteList'];

export async function run(baseUrl: string, key: string, noteId: string, receiverUrl: string) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });

  const pages: NoteList[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const { data, error } = await api.GET('/notes', { params: { query: { limit: 5, cursor } } });
    if (error) throw new Error(\`list failed: \${error.error.code} \${error.error.message}\`);
    pages.push(data);
    if (!data.has_more || data.next_cursor === null) break;
    cursor = data.next_cursor;
  }

  const got = await api.GET('/notes/{id}', { params: { path: { id: noteId } } });
  const language: string | undefined = got.data?.language;
  const search = await api.GET('/notes/search', { params: { query: { q: 'typed client', limit: 5 } } });
  const firstHit: number | undefined = search.data?.data[0]?.score;

  // The meeting's events: the envelopes its webhooks carry, with each event's id.
  const events = await api.GET('/events', { params: { query: { limit: 100, type: 'meeting.started' } } });
  const started = events.data?.data.find((e) => e.data.id === noteId);
  const event = started && (await api.GET('/events/{id}', { params: { path: { id: started.id } } }));
  const eventName: 'meeting.started' | 'meeting.transcribed' | 'meeting.completed' | 'summary.ready' | undefined =
    event?.data?.event;

  const created = await api.POST('/webhooks', { body: { url: receiverUrl, events: ['meeting.completed'] } });
  if (created.error) throw new Error(\`webhook refused: \${created.error.error.code}\`);
  const secret: string = created.data.secret;
  const listed = await api.GET('/webhooks');
  const removedHook = await api.DELETE('/webhooks/{id}', { params: { path: { id: created.data.id } } });
  const removedNote = await api.DELETE('/notes/{id}', { params: { path: { id: noteId } } });
  const removedAgain = await api.DELETE('/notes/{id}', { params: { path: { id: noteId } } });

  // Each documented error, its body typed by the status's schema.
  const noKey = await createClient<paths>({ baseUrl }).GET('/notes');
  const unknown = await api.GET('/notes/{id}', { params: { path: { id: '${UNKNOWN_ID}' } } });
  const badLimit = await api.GET('/notes', { params: { query: { limit: 500 } } });
  const malformedLimit = await api.GET('/notes', { params: { query: { limit: 'abc' as unknown as number } } });
  const errorCodes: ('invalid_request' | 'invalid_api_key' | 'forbidden' | 'not_found' | 'validation_error' | 'rate_limited' | 'internal_error' | 'service_unavailable' | undefined)[] = [
    noKey.error?.error.code,
    unknown.error?.error.code,
    badLimit.error?.error.code,
    malformedLimit.error?.error.code,
  ];

  const status = (r: { response: Response }) => r.response.status;
  return {
    pages,
    note: { status: status(got), data: got.data, language },
    search: { status: status(search), data: search.data, firstHit },
    events: { status: status(events), started, event: event && { status: status(event), data: event.data }, eventName },
    webhook: { status: status(created), data: created.data, secret },
    webhooks: { status: status(listed), data: listed.data },
    webhookDeleted: { status: status(removedHook), data: removedHook.data },
    noteDeleted: { status: status(removedNote), data: removedNote.data },
    noteDeletedAgain: { status: status(removedAgain), error: removedAgain.error },
    errors: {
      noKey: { status: status(noKey), error: noKey.error },
      unknown: { status: status(unknown), error: unknown.error },
      badLimit: { status: status(badLimit), error: badLimit.error },
      malformedLimit: { status: status(malformedLimit), error: malformedLimit.error },
    },
    errorCodes,
  };
}

export async function typeOnly(api: ReturnType<typeof createClient<paths>>) {
  // @ts-expect-error Form A has no deliveries log
  await api.GET('/webhooks/{id}/deliveries', { params: { path: { id: 'x' } } });
  // @ts-expect-error limit is a number
  await api.GET('/notes', { params: { query: { limit: '5' } } });
  // @ts-expect-error type is one of the event names
  await api.GET('/events', { params: { query: { type: 'meeting.ended' } } });
  // @ts-expect-error the id is required
  await api.GET('/notes/{id}', {});
  const { error } = await api.GET('/notes');
  // @ts-expect-error GET /notes answers no 409: conflict is not among its codes
  if (error?.error.code === 'conflict') return;
  // @ts-expect-error a Form A error is an object, not a string
  const text: string | undefined = error?.error;
  return text;
}
`;

const CLIENT_B = `
import createClient from 'openapi-fetch';
import type { components, paths } from './meeting-notes-b';

type NoteList = components['schemas']['NoteList'];

export async function run(baseUrl: string, key: string, noteId: string, receiverUrl: string) {
  // A Form A key answered in Form B: X-API-Form says which form, as the document does.
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\`, 'X-API-Form': 'B' } });

  const pages: NoteList[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const { data, error } = await api.GET('/notes', { params: { query: { limit: 5, cursor } } });
    if (error) throw new Error(\`list failed: \${typeof error.error === 'string' ? error.error : error.error.code}\`);
    pages.push(data);
    if (!data.has_more || data.next_cursor === null) break;
    cursor = data.next_cursor;
  }

  const got = await api.GET('/notes/{id}', { params: { path: { id: noteId } } });
  const startedAt: string | undefined = got.data?.started_at;
  const search = await api.GET('/notes/search', { params: { query: { q: 'typed client', limit: 5 } } });
  const firstHit: string | undefined = search.data?.data[0]?.id;

  // The meeting's events: the envelopes its webhooks carry, with each event's id.
  const events = await api.GET('/events', { params: { query: { limit: 100, type: 'meeting.started' } } });
  const started = events.data?.data.find((e) => e.data.id === noteId);
  const event = started && (await api.GET('/events/{id}', { params: { path: { id: started.id } } }));
  const eventName: 'meeting.started' | 'meeting.transcribed' | 'meeting.completed' | 'summary.ready' | undefined =
    event?.data?.event;

  const created = await api.POST('/webhooks', { body: { url: receiverUrl, events: ['meeting.completed'] } });
  if (created.error) throw new Error(\`webhook refused: \${JSON.stringify(created.error)}\`);
  const secret: string = created.data.secret;
  const listed = await api.GET('/webhooks');
  const deliveries = await api.GET('/webhooks/{id}/deliveries', { params: { path: { id: created.data.id }, query: { limit: 25 } } });
  const removedHook = await api.DELETE('/webhooks/{id}', { params: { path: { id: created.data.id } } });
  const success: boolean | undefined = removedHook.data?.success;

  // Each documented error. Without X-API-Form and without a key, the 401 is Form A's;
  // with X-API-Form: B it is Form B's: the Form B document types both.
  const noKeyDefault = await createClient<paths>({ baseUrl }).GET('/notes');
  const noKey = await createClient<paths>({ baseUrl, headers: { 'X-API-Form': 'B' } }).GET('/notes');
  const unknown = await api.GET('/notes/{id}', { params: { path: { id: '${UNKNOWN_ID}' } } });
  const badLimit = await api.GET('/notes', { params: { query: { limit: 500 } } });
  // Every Form B error body is {"error": string}, but a 401 without X-API-Form is Form A's.
  const messages: (string | undefined)[] = [unknown.error?.error, badLimit.error?.error].map((e) =>
    typeof e === 'object' ? e.code : e,
  );

  const status = (r: { response: Response }) => r.response.status;
  return {
    pages,
    note: { status: status(got), data: got.data, startedAt },
    search: { status: status(search), data: search.data, firstHit },
    events: { status: status(events), started, event: event && { status: status(event), data: event.data }, eventName },
    webhook: { status: status(created), data: created.data, secret },
    webhooks: { status: status(listed), data: listed.data },
    deliveries: { status: status(deliveries), data: deliveries.data },
    webhookDeleted: { status: status(removedHook), data: removedHook.data, success },
    errors: {
      noKeyDefault: { status: status(noKeyDefault), error: noKeyDefault.error },
      noKey: { status: status(noKey), error: noKey.error },
      unknown: { status: status(unknown), error: unknown.error },
      badLimit: { status: status(badLimit), error: badLimit.error },
    },
    messages,
  };
}

export async function typeOnly(api: ReturnType<typeof createClient<paths>>) {
  // @ts-expect-error Form B has no DELETE /notes/{id}
  await api.DELETE('/notes/{id}', { params: { path: { id: 'x' } } });
  const { data } = await api.GET('/notes/{id}', { params: { path: { id: 'x' } } });
  // @ts-expect-error Form B notes have started_at, not created_at
  return data?.created_at;
}
`;

type Form = 'A' | 'B';
interface Workspace {
  dir: string;
  docs: Record<Form, { servers: { url: string }[] }>;
}

/** Generates both forms' types from the served documents and checks the clients against them. */
async function generateAndCheck(baseURL: string, workspace: Workspace) {
  for (const form of ['A', 'B'] as const) {
    const res = await fetch(`${baseURL}/api/openapi.json?form=${form}`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Workspace['docs'][Form];
    workspace.docs[form] = doc;
    const ast = await openapiTS(doc as Parameters<typeof openapiTS>[0]);
    const name = `meeting-notes-${form.toLowerCase()}`;
    fs.writeFileSync(path.join(workspace.dir, `${name}.d.ts`), astToString(ast));
    fs.writeFileSync(
      path.join(workspace.dir, `client-${form.toLowerCase()}.ts`),
      form === 'A' ? CLIENT_A : CLIENT_B,
    );
  }
  // Where a developer's project has it: the client's imports resolve through node_modules.
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(workspace.dir, 'node_modules'), 'dir');

  // As a developer checks it: tsc on a strict tsconfig. In a child process, as a check of this size
  // would block the test's event loop for seconds (docs/testing.md, `run-command.ts`).
  fs.writeFileSync(
    path.join(workspace.dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        noUnusedLocals: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: [],
      },
      files: ['client-a.ts', 'client-b.ts'],
    }),
  );
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const checked = await runCommand(process.execPath, [tsc, '-p', '.', '--listFiles', '--pretty', 'false'], {
    cwd: workspace.dir,
  });
  // --listFiles prints each file of the program as an absolute path; anything else is a diagnostic.
  const lines = checked.stdout.split('\n').filter((line) => line.trim() !== '');
  const diagnostics = lines.filter((line) => !path.isAbsolute(line));
  expect({ code: checked.code, diagnostics, stderr: checked.stderr }).toEqual({
    code: 0,
    diagnostics: [],
    stderr: '',
  });
  // The generated files were part of the program, not skipped.
  expect(lines.filter((line) => path.isAbsolute(line)).map((file) => path.basename(file))).toEqual(
    expect.arrayContaining(['meeting-notes-a.d.ts', 'meeting-notes-b.d.ts']),
  );
}

/** The checked client as a module Node can run (types erased), from the same workspace. */
async function loadClient(workspace: Workspace, form: Form) {
  const source = fs.readFileSync(path.join(workspace.dir, `client-${form.toLowerCase()}.ts`), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  const file = path.join(workspace.dir, `client-${form.toLowerCase()}.mjs`);
  fs.writeFileSync(file, outputText);
  // The module's types were checked above; here its results are checked by value.
  return (await import(pathToFileURL(file).href)) as { run: (...args: string[]) => Promise<any> };
}

/** A note made through the recorder API, so that deleting it touches no seeded note. */
const recordTypedClientNote = (baseURL: string, key: string): Promise<string> =>
  recordNote(baseURL, key, {
    title: 'Typed client',
    started_at: '2026-11-21T10:00:00Z',
    ended_at: '2026-11-21T10:01:00Z',
    segments: [
      { speaker: 'Ana', content: 'The typed client pages through every note.', start_time: 0, end_time: 3 },
    ],
  });

/** Deletes a note in Form A (404 when it is gone already); the status. */
async function removeNote(baseURL: string, key: string, id: string): Promise<number> {
  const res = await fetch(`${baseURL}/v1/notes/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${key}` },
  });
  return res.status;
}

const workspace: Workspace = { dir: '', docs: {} as Workspace['docs'] };
/** A webhook receiver on 127.0.0.1 (the e2e server allows private URLs); it only says 204. */
let receiver: Receiver;
let hookUrl: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  workspace.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-typed-client-'));
  receiver = await new Receiver().start();
  receiver.defaultStatus = 204;
  hookUrl = `${receiver.base}/hooks`;
});

test.afterAll(async () => {
  await receiver?.close();
  if (workspace.dir) fs.rmSync(workspace.dir, { recursive: true, force: true });
});

test('openapi-typescript types from both served documents check a strict openapi-fetch client with zero diagnostics', async ({
  baseURL,
}) => {
  await generateAndCheck(baseURL!, workspace);
  // servers is absolute and names the origin the client used (the Host header, not the hostname
  // Next writes into request.url): the client needs no base URL of its own.
  for (const form of ['A', 'B'] as const) {
    expect(workspace.docs[form].servers).toEqual([
      { url: `${new URL(baseURL!).origin}/v1`, 'x-internal': false },
    ]);
  }
});

test('the checked Form A client runs the documented flows and gets the documented errors', async ({
  baseURL,
}) => {
  test.skip(!workspace.docs.A, 'needs the generated client');
  const key = apiKey();
  const noteId = await recordTypedClientNote(baseURL!, key);
  const { run } = await loadClient(workspace, 'A');
  // The run deletes the note itself; should it stop before that, the note goes all the same.
  const r = await run(workspace.docs.A.servers[0]!.url, key, noteId, hookUrl).finally(() =>
    removeNote(baseURL!, key, noteId),
  );

  // Paged to the end: every note once, the recorded one among them, as many as one big page has.
  const ids: string[] = r.pages.flatMap((p: { data: { id: string }[] }) => p.data.map((n) => n.id));
  expect(r.pages.at(-1)).toMatchObject({ has_more: false, next_cursor: null });
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toContain(noteId);
  const all = await fetch(`${baseURL}/v1/notes?limit=100`, { headers: { authorization: `Bearer ${key}` } });
  // The run deleted the recorded note after paging: the rest is what one big page has now.
  expect(ids.filter((id) => id !== noteId)).toEqual(
    ((await all.json()) as { data: { id: string }[] }).data.map((n) => n.id),
  );

  expect(r.note).toMatchObject({
    status: 200,
    data: { id: noteId, title: 'Typed client', platform: 'zoom' },
  });
  expect(r.note.language).toEqual(expect.any(String));
  expect(r.events).toMatchObject({ status: 200, eventName: 'meeting.started' });
  expect(r.events.started).toMatchObject({ event: 'meeting.started', data: { id: noteId, transcript: [] } });
  expect(r.events.event).toEqual({ status: 200, data: r.events.started });
  expect(r.search.status).toBe(200);
  expect(Array.isArray(r.search.data.data)).toBe(true);
  expect(r.webhook).toMatchObject({
    status: 201,
    data: { url: hookUrl, events: ['meeting.completed'], active: true },
  });
  expect(r.webhook.secret).toMatch(/^whsec_/);
  expect(r.webhooks.status).toBe(200);
  expect(r.webhooks.data.data).toContainEqual(expect.objectContaining({ id: r.webhook.data.id }));
  expect(r.webhooks.data.data[0]).not.toHaveProperty('secret');
  expect(r.webhookDeleted.status).toBe(204);
  expect(r.noteDeleted.status).toBe(204);

  // Form A errors: {"error":{"code","message"}} with the status's code.
  const shape = (code: string) => ({ error: { code, message: expect.any(String) } });
  expect(r.noteDeletedAgain).toEqual({ status: 404, error: shape('not_found') });
  expect(r.errors.noKey).toEqual({ status: 401, error: shape('invalid_api_key') });
  expect(r.errors.unknown).toEqual({ status: 404, error: shape('not_found') });
  expect(r.errors.badLimit).toEqual({
    status: 422,
    error: { error: { code: 'validation_error', message: 'limit must be between 1 and 100' } },
  });
  expect(r.errors.malformedLimit).toEqual({ status: 400, error: shape('invalid_request') });
  expect(r.errorCodes).toEqual(['invalid_api_key', 'not_found', 'validation_error', 'invalid_request']);
});

test('the checked Form B client (X-API-Form: B) runs the documented flows and gets the documented errors', async ({
  baseURL,
}) => {
  test.skip(!workspace.docs.B, 'needs the generated client');
  const key = apiKey();
  const noteId = await recordTypedClientNote(baseURL!, key);
  try {
    const { run } = await loadClient(workspace, 'B');
    const r = await run(workspace.docs.B.servers[0]!.url, key, noteId, hookUrl);

    const ids: string[] = r.pages.flatMap((p: { data: { id: string }[] }) => p.data.map((n) => n.id));
    expect(r.pages.at(-1)).toMatchObject({ has_more: false, next_cursor: null });
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(noteId);
    const all = await fetch(`${baseURL}/v1/notes?limit=100`, {
      headers: { authorization: `Bearer ${key}`, 'x-api-form': 'B' },
    });
    expect(ids).toEqual(((await all.json()) as { data: { id: string }[] }).data.map((n) => n.id));

    expect(r.note).toMatchObject({
      status: 200,
      data: { id: noteId, title: 'Typed client', platform: 'zoom', status: 'ready' },
      startedAt: '2026-11-21T10:00:00.000Z',
    });
    expect(r.search.status).toBe(200);
    expect(Array.isArray(r.search.data.data)).toBe(true);
    expect(r.events).toMatchObject({ status: 200, eventName: 'meeting.started' });
    expect(r.events.started).toMatchObject({
      event: 'meeting.started',
      data: { id: noteId, transcript: [] },
    });
    expect(r.events.event).toEqual({ status: 200, data: r.events.started });
    expect(r.webhook).toMatchObject({
      status: 201,
      data: { url: hookUrl, events: ['meeting.completed'], active: true },
    });
    expect(r.webhook.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.webhooks.data.data).toContainEqual(expect.objectContaining({ id: r.webhook.data.id }));
    expect(r.deliveries).toMatchObject({ status: 200, data: { data: expect.any(Array) } });
    expect(r.webhookDeleted).toEqual({ status: 200, data: { success: true }, success: true });

    // Form B errors: {"error":"<message>"}, 400 where Form A says 422; a 401 without
    // X-API-Form is Form A's, as the Form B document's 401 says.
    expect(r.errors.noKey).toEqual({ status: 401, error: { error: expect.any(String) } });
    expect(r.errors.noKeyDefault).toEqual({
      status: 401,
      error: { error: { code: 'invalid_api_key', message: expect.any(String) } },
    });
    expect(r.errors.unknown).toEqual({ status: 404, error: { error: expect.any(String) } });
    expect(r.errors.badLimit).toEqual({ status: 400, error: { error: 'limit must be between 1 and 100' } });
    expect(r.messages).toEqual([expect.any(String), 'limit must be between 1 and 100']);
  } finally {
    // Form B has no delete: leave the notes as the other specs expect them.
    expect(await removeNote(baseURL!, key, noteId)).toBe(204);
  }
});
