import { and, eq, isNull } from 'drizzle-orm';
import type { Logger } from 'drizzle-orm/logger';
import { expect } from 'vitest';
import { hashApiKey } from '../../server/accounts/api-key-crypto';
import { apiKeys } from '../../server/db/schema';
import { createContractValidator, recordContractCounts } from './openapi-contract';
import { createAccount, createApiKey, type Account } from '../../server/accounts/accounts';
import type { FormName, Plan } from '../../server/domain';
import { authSettings } from '../../server/auth/auth-options';
import { type AppDeps, createAppHandlers, routeFor } from '../../server/runtime/app-handlers';
import { startWorker, type Worker } from '../../server/worker/worker';
import { parseEnv } from '../../server/env';
import { createServices, type Services } from '../../server/services';
import { serveNode } from '../../server/http/serve-node';
import { openApiDocumentSettings } from '../../server/rest/openapi-document';
import { createTestDatabase } from './test-database';
import { type RecordNoteOptions, recordNote } from './recorder';
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
    /** Writes the key usage this app holds in memory and gives its unused blocks of quota back. */
    flushCounts: () => services.requests.flush(database.db),
    async close() {
      recordContractCounts(expect.getState().testPath);
      await worker?.stop();
      await server.close();
      await services.requests.close(database.db);
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
    /** Records a meeting through the recorder API (test/support/recorder.ts) and returns its id. */
    recordNote(key: string, opts: RecordNoteOptions = {}): Promise<string> {
      const post = (path: string, apiKey: string, json: unknown) =>
        app.request(path, { method: 'POST', key: apiKey, json });
      return recordNote(post, key, opts);
    },
  };
  return app;
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
