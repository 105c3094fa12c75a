import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { expect, test } from '@playwright/test';
import { BrowserSession } from '../test/support/http-session';
import { recordNote } from '../test/support/recorder';
import { type CapturedMail, linkIn, startSmtpCapture, waitForMail } from '../test/support/smtp-capture';

// The deployment: what the build leaves in .next/standalone, with .next/static copied beside it
// as Next's documentation says, alone in an empty folder outside the repository (no node_modules
// above it, no checkout around it), started with `node server.js` on a fresh database, and run
// the way an operator runs it: the operator signs up in the settings app with an address of
// ADMIN_EMAILS, opens the emailed link, and creates the team's account and key in the operator
// console; the recorder API delivers meetings, and search finds one by what it means.
//
// The build is the one Playwright's server made (`npm start` builds this same output). Node's
// permission model lets the server read and write only inside its folder, so a file that the
// build left out fails here instead of being read from the checkout.

const root = path.resolve(import.meta.dirname, '..');
const serverUrl = process.env.TEST_DATABASE_URL;
const OPERATOR = 'operator@standalone.test';
const PASSWORD = 'quiet-harbor-lantern-71';

const MEETINGS = {
  outage: {
    title: 'Night incident review',
    lines: [
      'The primary database crashed at two in the morning.',
      'The standby took over only after eleven minutes.',
      'Customers could not log in during that time, and support got forty tickets.',
    ],
    summary: 'The primary database crashed at night; the standby took eleven minutes to take over.',
  },
  hiring: {
    title: 'Hiring plan',
    lines: [
      'We will open two positions for backend engineers next quarter.',
      'A designer joins the team as well.',
      'Interviews start in March and the recruiter screens the candidates.',
    ],
    summary: 'Two backend engineers and a designer will be hired next quarter.',
  },
  budget: {
    title: 'Spring campaign budget',
    lines: [
      'The launch campaign will cost forty thousand dollars.',
      'Most of it goes to video ads and a trade show booth.',
      'Finance wants the numbers by Friday.',
    ],
    summary: 'The spring launch campaign costs forty thousand dollars, mostly video ads.',
  },
};
// The outage meeting, in other words: none of its content words.
const PARAPHRASE = 'the service went down overnight and people were locked out of their accounts';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** How this Node turns its permission model on, and whether it also guards the network. */
function permissionFlags(folder: string): string[] {
  const help = spawnSync(process.execPath, ['--help'], { encoding: 'utf8' }).stdout;
  return [
    /--permission\b/.test(help) ? '--permission' : '--experimental-permission',
    `--allow-fs-read=${folder}/*`,
    `--allow-fs-write=${folder}/*`,
    // The semantic model runs on a worker thread.
    '--allow-worker',
    ...(/--allow-net\b/.test(help) ? ['--allow-net'] : []),
  ];
}

interface Server {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** `node server.js` in the folder, with only the environment a deployment gives it. */
async function startServer(folder: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const deployed: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: folder,
    PORT: String(port),
    HOSTNAME: '127.0.0.1',
    NEXTAUTH_URL: url,
    NEXT_TELEMETRY_DISABLED: '1',
    ...env,
  };
  const child: ChildProcess = spawn(process.execPath, [...permissionFlags(folder), 'server.js'], {
    cwd: folder,
    env: deployed as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`server.js exited (${child.exitCode}):\n${output}`);
        return fetch(`${url}/icon.svg`).then(
          (r) => r.status,
          () => 0,
        );
      },
      { timeout: 120_000 },
    )
    .toBe(200);
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

let folder: string;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let database: { env: Record<string, string>; drop(): Promise<void> };

test.beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-standalone-'));
  expect(path.relative(root, folder).startsWith('..')).toBe(true);
  // As `cp -r` copies it: Next links the external packages' hashed names (.next/node_modules) to
  // node_modules by relative symlinks, which fs.cpSync would otherwise point back at the source.
  fs.cpSync(path.join(root, '.next', 'standalone'), folder, { recursive: true, verbatimSymlinks: true });
  fs.cpSync(path.join(root, '.next', 'static'), path.join(folder, '.next', 'static'), { recursive: true });
  smtp = await startSmtpCapture();
  if (serverUrl) {
    const name = `mn_standalone_${randomBytes(4).toString('hex')}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    database = {
      env: { DATABASE_URL: url.toString() },
      async drop() {
        const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
        await sql.unsafe(`drop database if exists ${name} with (force)`);
        await sql.end();
      },
    };
  } else {
    database = { env: { DATA_DIR: path.join(folder, 'data') }, drop: async () => {} };
  }
});

test.afterAll(async () => {
  await smtp?.close();
  await database?.drop();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

const deployment = () => ({
  ...database.env,
  NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
  SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
  ADMIN_EMAILS: OPERATOR,
  WORKER_INTERVAL_MS: '250',
});

const mailTo = (address: string, subject: string): Promise<CapturedMail> =>
  waitForMail(() => smtp.mails, address, subject);

/** The search's note ids, best first, in the form asked for. */
async function search(server: Server, key: string, form: 'A' | 'B', q: string, limit = 10) {
  const res = await fetch(`${server.url}/v1/notes/search?q=${encodeURIComponent(q)}&limit=${limit}`, {
    headers: { authorization: `Bearer ${key}`, 'x-api-form': form },
  });
  const body = await res.json();
  if (res.status !== 200)
    throw new Error(`search (Form ${form}) answered ${res.status}: ${JSON.stringify(body)}`);
  return (body.data as { note_id?: string; id?: string }[]).map((hit) => hit.note_id ?? hit.id);
}

test('the standalone build runs from a copy of its folder alone: migrations at start, the operator console, the recorder, and search by meaning in both forms', async () => {
  test.setTimeout(420_000);
  const env = deployment();
  let server = await startServer(folder, env);
  let key: string;
  const ids: Record<string, string> = {};
  try {
    // The operator signs up with an address of ADMIN_EMAILS and opens the emailed link.
    const operator = new BrowserSession(server.url);
    expect((await operator.mutate('account.signUp', { email: OPERATOR, password: PASSWORD })).status).toBe(
      200,
    );
    const link = linkIn(await mailTo(OPERATOR, 'Welcome to Meeting Notes'), '/verify-email');
    const token = link.searchParams.get('token');
    expect((await operator.mutate('account.verifyEmail', { token })).status).toBe(200);
    expect((await operator.signIn(OPERATOR, PASSWORD)).error).toBeNull();
    // The operator console makes the team's account with early access, and its first key.
    const created = await operator.mutate('admin.createAccount', {
      email: 'team@standalone.test',
      plan: 'pro',
      earlyAccess: true,
      form: 'A',
    });
    expect(created.status).toBe(200);
    key = created.json.result.data.apiKey;
    expect(key).toMatch(/^mnk_/);

    // The recorder delivers three meetings: transcript, then summary.
    for (const [name, m] of Object.entries(MEETINGS)) {
      ids[name] = await recordNote(server.url, key, {
        title: m.title,
        platform: 'zoom',
        language: 'en',
        segments: m.lines.map((content, i) => ({
          speaker: 'Ana',
          content,
          start_time: i * 5,
          end_time: i * 5 + 4,
        })),
        // The recorder's default, as when the field is left out: a summary is queued with the transcript.
        generateSummary: true,
        summary: {
          context: m.summary,
          decisions: [],
          action_items: [],
          participants: ['Ana'],
          next_step: null,
          budget_mentioned: null,
          sentiment: 'neutral',
        },
      });
    }

    // Searchable once the model (loaded from the folder, on its own thread) has embedded all
    // three in the background; then the paraphrase finds the outage first, in both forms.
    const all = Object.values(ids).sort();
    for (const form of ['A', 'B'] as const) {
      await expect
        .poll(async () => [...new Set(await search(server, key, form, 'meeting'))].sort(), {
          timeout: 240_000,
        })
        .toEqual(all);
      expect((await search(server, key, form, PARAPHRASE))[0]).toBe(ids.outage);
    }
    // The events of those meetings, and the event catalog as AsyncAPI.
    const events = await fetch(`${server.url}/v1/events?type=meeting.started`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(events.status).toBe(200);
    expect(((await events.json()).data as { data: { id: string } }[]).map((e) => e.data.id).sort()).toEqual(
      all,
    );
    const asyncapi = await fetch(`${server.url}/api/asyncapi.json?form=B`);
    expect(asyncapi.status).toBe(200);
    expect((await asyncapi.json()).asyncapi).toBe('3.0.0');
    const recorderDoc = await fetch(`${server.url}/api/recorder/openapi.json`);
    expect(recorderDoc.status).toBe(200);
    expect(Object.keys((await recorderDoc.json()).paths)).toContain('/meetings');
    expect(server.output()).toContain('"msg":"database ready"');
    expect(server.output()).not.toMatch(
      /Semantic search is unavailable|SemanticModelLoadError|ERR_ACCESS_DENIED/,
    );
  } finally {
    await server.stop();
  }

  // The same folder without the model's packages, as a copy that left them out would be: the
  // server says so once at start, and search is a 503 in the form's error shape, never a 500.
  fs.rmSync(path.join(folder, 'node_modules', '@energetic-ai'), { recursive: true, force: true });
  server = await startServer(folder, env);
  try {
    expect(server.output()).toMatch(
      /Semantic search is unavailable: a package of the model cannot be found \(@energetic-ai\//,
    );
    for (const form of ['A', 'B'] as const) {
      const res = await fetch(`${server.url}/v1/notes/search?q=${encodeURIComponent(PARAPHRASE)}`, {
        headers: { authorization: `Bearer ${key}`, 'x-api-form': form },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const body = await res.json();
      const message =
        'Search is unavailable for the moment: the service cannot load its language model; retry later';
      expect(body).toEqual(
        form === 'A' ? { error: { code: 'service_unavailable', message } } : { error: message },
      );
    }
    // The rest of the API does not depend on the model.
    const notes = await fetch(`${server.url}/v1/notes`, { headers: { authorization: `Bearer ${key}` } });
    expect(notes.status).toBe(200);
    expect((await notes.json()).data).toHaveLength(3);
  } finally {
    await server.stop();
  }
});
