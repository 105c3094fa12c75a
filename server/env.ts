import { z } from 'zod';

// The only module that reads process.env. Everything else asks getEnv().

const bool = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const boolDefaultTrue = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v !== 'false' && v !== '0');

const postgresUrl = (name: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
      message: `${name} must start with postgres:// or postgresql://`,
    });

const positiveInt = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a positive integer, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

/**
 * A key for the webhook secrets at rest: 32 bytes written as base64 or base64url
 * (43 characters, or 44 with the `=` padding) or as 64 hex digits; null for anything else.
 */
export function decodeSecretsKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) return null;
  const key = Buffer.from(t, 'base64');
  return key.length === 32 ? key : null;
}

const SECRETS_KEY_FORMAT =
  '32 bytes written as base64 or base64url (43 or 44 characters) or as 64 hex digits; `npm run secrets:rotate-key -- --generate` prints one';

const secretsKey = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (!v?.trim()) return undefined;
    const key = decodeSecretsKey(v);
    if (!key) {
      // The value is a secret: its length is all the message tells.
      ctx.addIssue({
        code: 'custom',
        message: `SECRETS_KEY must be ${SECRETS_KEY_FORMAT}; got ${v.trim().length} characters`,
      });
      return z.NEVER;
    }
    return key;
  });

const previousSecretsKeys = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const parts = (v ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const keys: Buffer[] = [];
    parts.forEach((part, i) => {
      const key = decodeSecretsKey(part);
      if (key) keys.push(key);
      else
        ctx.addIssue({
          code: 'custom',
          message: `SECRETS_PREVIOUS_KEYS: key ${i + 1} of ${parts.length} must be ${SECRETS_KEY_FORMAT}; got ${part.length} characters`,
        });
    });
    return keys;
  });

const envSchema = z
  .object({
    DATABASE_URL: postgresUrl('DATABASE_URL'),
    // What sits between the service and PostgreSQL. `transaction`: a transaction-mode pooler
    // (PgBouncer, Neon's, Supabase's Supavisor), where a session lasts one transaction, so no
    // prepared statements. It is declared, not guessed: a pooler answers like the server it hides.
    DATABASE_POOL_MODE: z
      .enum(['session', 'transaction', ''])
      .optional()
      .transform((v) => v || 'session'),
    // A direct (unpooled) URL of the same database for migrations, as Neon and Vercel name it.
    DATABASE_URL_UNPOOLED: postgresUrl('DATABASE_URL_UNPOOLED'),
    // false: `npm start`, the server and the CLIs only check that the database is migrated, and
    // `npm run db:migrate` (a release step) applies migrations.
    MIGRATE_ON_START: boolDefaultTrue,
    DATA_DIR: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : './.data')),
    PORT: positiveInt('PORT', 3000),
    VERCEL_ENV: z.string().optional(),
    // A production deployment outside Vercel says so here (VERCEL_ENV=production counts too):
    // the settings that only local development may leave out are then required. NODE_ENV cannot
    // tell: Next's production server (`npm start`'s server.js, `next start`) always sets it to
    // production.
    APP_ENV: z.string().optional(),
    CRON_SECRET: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    // Vercel sets VERCEL=1 in its functions' environment: no process lives long enough there for
    // an in-process worker, so WORKER defaults to off; Vercel Cron and after() do the work.
    VERCEL: z.string().optional(),
    WORKER: z.enum(['on', 'off', '']).optional(),
    WORKER_INTERVAL_MS: positiveInt('WORKER_INTERVAL_MS', 1000),
    WEBHOOK_TIMEOUT_MS: positiveInt('WEBHOOK_TIMEOUT_MS', 10_000),
    WEBHOOK_RETRY_DELAYS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const raw = v?.trim() ? v.trim() : '30,300,1800';
        const parts = raw.split(',');
        if (parts.length !== 3 || !parts.every((p) => /^\d+$/.test(p.trim()))) {
          ctx.addIssue({
            code: 'custom',
            message: `WEBHOOK_RETRY_DELAYS must be exactly three comma-separated whole numbers of seconds (e.g. 30,300,1800), got "${raw}"`,
          });
          return z.NEVER;
        }
        return parts.map((p) => Number(p.trim())) as [number, number, number];
      }),
    WEBHOOK_ALLOW_PRIVATE_URLS: bool,
    // The key webhook signing secrets are encrypted under at rest (unset: a key
    // generated once into DATA_DIR, see server/webhooks/secret-keys.ts), and older keys that still
    // open them during a key rotation.
    SECRETS_KEY: secretsKey,
    SECRETS_PREVIOUS_KEYS: previousSecretsKeys,
    // The operators: signed in with one of these addresses (once its owner opened a link emailed
    // to it), an account sees the operator console (/admin); the addresses get the early-access
    // requests by email.
    ADMIN_EMAILS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const list = (v ?? '')
          .split(',')
          .map((e) => e.trim().toLowerCase())
          .filter((e) => e !== '');
        for (const email of list) {
          if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
            ctx.addIssue({
              code: 'custom',
              message: `ADMIN_EMAILS must be email addresses separated by commas, got "${email}"`,
            });
        }
        return [...new Set(list)];
      }),
    SMTP_URL: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    EMAIL_FROM: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : 'Meeting Notes <no-reply@localhost>')),
    // The default matches meaning (USE-lite, shipped in node_modules, nothing downloaded).
    EMBEDDINGS_PROVIDER: z
      .enum(['local', 'semantic', 'openai', ''])
      .optional()
      .transform((v) => v || 'semantic'),
    EMBEDDINGS_BASE_URL: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    EMBEDDINGS_API_KEY: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    EMBEDDINGS_MODEL: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    // Unset: 768 for `semantic` (512 meaning + 256 words), else 384; see below.
    EMBEDDINGS_DIMENSIONS: positiveInt('EMBEDDINGS_DIMENSIONS', 0),
    SEARCH_EXACT_MAX_ROWS: positiveInt('SEARCH_EXACT_MAX_ROWS', 5_000),
    // Model threads of the semantic embedder; unset: from the cores (services.ts).
    EMBEDDING_THREADS: positiveInt('EMBEDDING_THREADS', 0),
    LLM_BASE_URL: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    LLM_API_KEY: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    LLM_MODEL: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    NEXTAUTH_SECRET: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    NEXTAUTH_URL: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    GITHUB_ID: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    GITHUB_SECRET: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    GOOGLE_CLIENT_ID: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    GOOGLE_CLIENT_SECRET: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined)),
    // Traces go over OTLP/HTTP to this collector when set (server/telemetry/tracing.ts); unset,
    // no tracing code is loaded. The SDK itself reads its other standard OTEL_* variables
    // (OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER, OTEL_BSP_*, span limits).
    OTEL_EXPORTER_OTLP_ENDPOINT: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined))
      .refine((v) => v === undefined || /^https?:\/\/[^/\s]+/.test(v), {
        message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, e.g. http://127.0.0.1:4318',
      }),
    OTEL_SERVICE_NAME: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : 'meeting-notes')),
    // On SIGTERM/SIGINT, how long background work in progress may take to finish before what is
    // left is released and the process exits (server/runtime/shutdown.ts).
    SHUTDOWN_TIMEOUT_MS: positiveInt('SHUTDOWN_TIMEOUT_MS', 20_000),
    LOG_LEVEL: z
      .enum(['debug', 'info', 'warn', 'error', 'silent', ''])
      .optional()
      .transform((v) => v || 'info'),
    // How many proxies in front of the server append to X-Forwarded-For (see server/auth/client-address.ts).
    // Unset: none, so the client is the socket's peer; on Vercel one (its edge sets the header).
    TRUST_PROXY: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const raw = v?.trim().toLowerCase();
        if (!raw) return undefined;
        if (raw === 'false') return 0;
        if (raw === 'true') return 1;
        if (!/^\d{1,2}$/.test(raw)) {
          ctx.addIssue({
            code: 'custom',
            message: `TRUST_PROXY must be the number of proxies in front of the server (0, 1, 2…), true (1) or false (0), got "${v}"`,
          });
          return z.NEVER;
        }
        return Number(raw);
      }),
  })
  .transform(({ VERCEL, WORKER, ...env }) => ({
    ...env,
    WORKER: WORKER === 'on' || (WORKER !== 'off' && !VERCEL),
    EMBEDDINGS_DIMENSIONS: env.EMBEDDINGS_DIMENSIONS || (env.EMBEDDINGS_PROVIDER === 'semantic' ? 768 : 384),
  }))
  .superRefine((env, ctx) => {
    if (!env.DATABASE_URL && env.DATABASE_POOL_MODE === 'transaction') {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_POOL_MODE'],
        message:
          'DATABASE_POOL_MODE=transaction describes the pooler in front of DATABASE_URL, which is not set (the embedded database has none)',
      });
    }
    if (!env.DATABASE_URL && env.DATABASE_URL_UNPOOLED) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL_UNPOOLED'],
        message:
          'DATABASE_URL_UNPOOLED is the direct URL of the database DATABASE_URL pools; set DATABASE_URL too',
      });
    }
    if (env.EMBEDDINGS_PROVIDER === 'openai') {
      if (!env.EMBEDDINGS_BASE_URL || !/^https?:\/\//.test(env.EMBEDDINGS_BASE_URL)) {
        ctx.addIssue({
          code: 'custom',
          path: ['EMBEDDINGS_BASE_URL'],
          message:
            'EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_BASE_URL, an http(s) URL such as https://api.openai.com/v1',
        });
      }
      if (!env.EMBEDDINGS_MODEL) {
        ctx.addIssue({
          code: 'custom',
          path: ['EMBEDDINGS_MODEL'],
          message: 'EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_MODEL, e.g. text-embedding-3-small',
        });
      }
    }
    if (env.EMBEDDINGS_PROVIDER === 'semantic' && env.EMBEDDINGS_DIMENSIONS < 512) {
      ctx.addIssue({
        code: 'custom',
        path: ['EMBEDDINGS_DIMENSIONS'],
        message: `EMBEDDINGS_PROVIDER=semantic needs EMBEDDINGS_DIMENSIONS of at least 512 (768 recommended: 512 for meaning, 256 for words), got ${env.EMBEDDINGS_DIMENSIONS}; then run \`npm run reindex\`; or set EMBEDDINGS_PROVIDER=local to keep the word-matching embedder`,
      });
    }
    if (env.EMBEDDINGS_DIMENSIONS > 2000) {
      ctx.addIssue({
        code: 'custom',
        path: ['EMBEDDINGS_DIMENSIONS'],
        message: 'EMBEDDINGS_DIMENSIONS must be at most 2000, the most a pgvector HNSW index takes',
      });
    }
    if (env.LLM_MODEL && (!env.LLM_BASE_URL || !/^https?:\/\//.test(env.LLM_BASE_URL))) {
      ctx.addIssue({
        code: 'custom',
        path: ['LLM_BASE_URL'],
        message: 'LLM_MODEL is set, so LLM_BASE_URL must be an http(s) URL such as https://api.openai.com/v1',
      });
    }
    const production = isProductionDeployment(env);
    if (production && env.WEBHOOK_ALLOW_PRIVATE_URLS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_ALLOW_PRIVATE_URLS'],
        message: `WEBHOOK_ALLOW_PRIVATE_URLS=true is for local development and tests only; it is refused with ${production}`,
      });
    }
    if (production && !env.SECRETS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SECRETS_KEY'],
        message: `SECRETS_KEY is required with ${production}: webhook signing secrets are encrypted under it, and a key generated into DATA_DIR would not survive a deployment`,
      });
    }
    if (production && !env.SMTP_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['SMTP_URL'],
        message: `SMTP_URL is required with ${production}: without it emails (sign-up verification, password reset links) go to the server's log, which is for local development only`,
      });
    }
    if (env.VERCEL_ENV === 'production' && !env.CRON_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['CRON_SECRET'],
        message:
          'CRON_SECRET is required with VERCEL_ENV=production, or anyone could trigger /api/cron/dispatch',
      });
    }
  })
  .transform(({ TRUST_PROXY, ...env }) => ({ ...env, TRUST_PROXY: TRUST_PROXY ?? (env.VERCEL_ENV ? 1 : 0) }));

export type Env = z.infer<typeof envSchema>;

/**
 * The variable that marks a production deployment (`VERCEL_ENV=production` or
 * `APP_ENV=production`), as a message would name it; null when this is not one.
 */
export function isProductionDeployment(env: { VERCEL_ENV?: string; APP_ENV?: string }): string | null {
  if (env.VERCEL_ENV === 'production') return 'VERCEL_ENV=production';
  if (env.APP_ENV?.trim().toLowerCase() === 'production') return 'APP_ENV=production';
  return null;
}

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    throw new EnvError(
      result.error.issues.map((i) => {
        const name = i.path.join('.');
        return i.message.includes(name) || !name ? i.message : `${name}: ${i.message}`;
      }),
    );
  }
  return result.data;
}

let cached: { source: NodeJS.ProcessEnv; env: Env } | undefined;

/** The settings, parsed once per process.env object (replacing process.env has them read again). */
export function getEnv(): Env {
  if (cached?.source !== process.env) cached = { source: process.env, env: parseEnv(process.env) };
  return cached.env;
}

/** `next dev` (NODE_ENV=development), as opposed to Next's production server, vitest or a script. */
export function isNextDev(): boolean {
  return process.env.NODE_ENV === 'development';
}
