import { and, eq, isNull } from 'drizzle-orm';
import type { Logger } from 'drizzle-orm/logger';
import { expect } from 'vitest';
import { hashApiKey } from '../../server/accounts/api-key-crypto';
import { apiKeys } from '../../server/db/schema';
import { createContractValidator, recordContractCounts } from './openapi-contract';
import { createAccount, createApiKey, type Account } from '../../server/accounts/accounts';
import type { FormName, Plan, Platform } from '../../server/domain';
import { authSettings } from '../../server/auth/auth-options';
import { type AppDeps, createAppHandlers, routeFor } from '../../server/runtime/app-handlers';
import { startWorker, type Worker } from '../../server/worker/worker';
import { parseEnv } from '../../server/env';
import { createServices, type Services } from '../../server/services';
import { serveNode } from '../../server/http/serve-node';
import { openApiDocumentSettings } from '../../server/rest/openapi-document';
import { createTestDatabase } from './test-database';
import type { Database } from '../../server/db/client';
import type { WorkStop } from '../../server/jobs/work-stop';

/** The service's real HTTP handlers on a real socket, over a fresh database. */
export async function startTestApp(
  opts: {
    logger?: Logger;
    env?: Record<string, string>;
    services?: Partial<Services>;
    worker?: boolean;
    /** The API's clock (key expiry, rate-limit windows), for tests that move time. */
    now?: () => Date;
    /** A database of the test's own (unreachable, or migrated short) instead of a fresh one; closed with the app. */
    database?: Database;
    /** The process's shutdown as the runtime has it: the cron route and readiness follow it. */
    stop?: WorkStop;
    /** /api/ready's settings (how long an answer is reused). */
    ready?: AppDeps['ready'];
  } = {},
) {
  const database = opts.database ?? (await createTestDatabase(opts));
  let worker: Worker | null = null;
  // Local embedder and extractive summariser unless a test says otherwise (the service's default,
  // the semantic model, embeds in the background and is slow); the worker is started only by
  // tests that want background work done (summaries, semantic or remote embeddings).
  const services: Services = {
    ...createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local', ...opts.env })),
    ...opts.services,
    kick: () => worker?.kick(),
  };
  if (opts.worker)
    worker = startWorker({
      getDatabase: async () => database,
      services: () => services,
      intervalMs: 200,
      ...(opts.stop && { stop: opts.stop }),
    });
  // The cron route waits for work falling due within its budget: short here.
  const cron = { secret: opts.env?.CRON_SECRET, openWithoutSecret: false, budgetMs: 1500 };
  // The settings app's sessions, signed with a test secret; next-auth takes the site's origin
  // from the Host header, as `npm start` has it do (scripts/prepare.ts sets AUTH_TRUST_HOST too).
  process.env.AUTH_TRUST_HOST ??= 'true';
  const auth = authSettings(parseEnv({ NEXTAUTH_SECRET: 'test-only-session-secret', ...opts.env }));
  const openapi = openApiDocumentSettings(parseEnv({ ...opts.env }));
  const handlers = createAppHandlers({
    getDatabase: async () => database,
    services,
    cron,
    auth,
    openapi,
    ...(opts.now && { now: opts.now }),
    ...(opts.stop && { stop: opts.stop }),
    ...(opts.ready && { ready: opts.ready }),
  });
  const server = await serveNode((path) => routeFor(handlers, path));
  let accounts = 0;
  // Every /v1 answer is checked against the published document of its form.
  const keyForms = new Map<string, FormName>();
  const validateContract = createContractValidator({
    baseUrl: server.url,
    async keyForm(token) {
      const known = keyForms.get(token);
      if (known) return known;
      // Keys made some other way (the settings app, the CLI): the database knows their form.
      const [row] = await database.db
        .select({ form: apiKeys.form })
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, hashApiKey(token)), isNull(apiKeys.revokedAt)));
      return row?.form;
    },
  });

  const app = {
    url: server.url,
    database,
    db: database.db,
    services,
    async close() {
      recordContractCounts(expect.getState().testPath);
      await worker?.stop();
      await server.close();
      await database.close();
    },
    /** An account with a key; early access unless said otherwise. */
    async createAccount(
      opts: { form?: FormName; earlyAccess?: boolean; plan?: Plan; dailyLimit?: number } = {},
    ) {
      const account: Account = await createAccount(database.db, {
        email: `user${++accounts}-${Date.now()}@example.com`,
        earlyAccess: opts.earlyAccess ?? true,
        plan: opts.plan ?? 'pro',
        dailyLimit: opts.dailyLimit ?? null,
      });
      const { plaintext, key } = await createApiKey(database.db, {
        accountId: account.id,
        form: opts.form ?? 'A',
      });
      keyForms.set(plaintext, key.form);
      return { account, key: plaintext, keyId: key.id };
    },
    async request(path: string, init: RequestInit & { key?: string; form?: string; json?: unknown } = {}) {
      const headers = new Headers(init.headers);
      if (init.key) headers.set('authorization', `Bearer ${init.key}`);
      if (init.form) headers.set('x-api-form', init.form);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      const res = await fetch(server.url + path, { ...init, headers, body });
      const text = await res.text();
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      await validateContract(
        { method: init.method ?? 'GET', path, headers },
        { status: res.status, headers: res.headers, text },
      );
      return { status: res.status, headers: res.headers, json, text };
    },
    /** Records a meeting through the recorder API and returns its id. */
    async recordNote(
      key: string,
      opts: {
        title?: string | null;
        platform?: Platform;
        language?: string;
        started_at?: string;
        segments?: { speaker: string; content: string; start_time: number; end_time?: number | null }[];
        summary?: unknown;
        summaryText?: string;
        transcribe?: boolean;
        /** Queue a generated summary, as the recorder's default does (off here, unless asked). */
        generateSummary?: boolean;
        ended_at?: string;
        duration_seconds?: number;
      } = {},
    ): Promise<string> {
      const created = await app.request('/api/recorder/meetings', {
        method: 'POST',
        key,
        json: {
          title: opts.title === undefined ? 'Weekly sync' : opts.title,
          platform: opts.platform ?? 'zoom',
          ...(opts.language && { language: opts.language }),
          ...(opts.started_at && { started_at: opts.started_at }),
        },
      });
      if (created.status !== 201) throw new Error(`create meeting: ${created.status} ${created.text}`);
      const id = created.json.id as string;
      if (opts.transcribe === false) return id;
      const transcript = await app.request(`/api/recorder/meetings/${id}/transcript`, {
        method: 'POST',
        key,
        json: {
          segments: opts.segments ?? [
            { speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0, end_time: 2.5 },
            {
              speaker: 'Ben',
              content: 'Yes, the release is on track for Friday.',
              start_time: 2.5,
              end_time: 6,
            },
          ],
          ...(opts.ended_at && { ended_at: opts.ended_at }),
          ...(opts.duration_seconds !== undefined && { duration_seconds: opts.duration_seconds }),
          generate_summary: opts.generateSummary ?? false,
        },
      });
      if (transcript.status !== 200)
        throw new Error(`store transcript: ${transcript.status} ${transcript.text}`);
      if (opts.summary) {
        const summary = await app.request(`/api/recorder/meetings/${id}/summary`, {
          method: 'POST',
          key,
          json: { summary: opts.summary, ...(opts.summaryText && { text: opts.summaryText }) },
        });
        if (summary.status !== 200) throw new Error(`store summary: ${summary.status} ${summary.text}`);
      }
      return id;
    },
  };
  return app;
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
