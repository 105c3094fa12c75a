import { availableParallelism } from 'node:os';
import { LocalEmbedder } from './embeddings/local-embedder';
import { OpenAIEmbedder } from './embeddings/openai-embedder';
import type { EmbeddingProvider } from './embeddings/provider';
import { SemanticEmbedder } from './embeddings/semantic-embedder';
import { pooledUseLiteLoader } from './embeddings/use-lite-worker';
import { createMailer, type Mailer } from './email/send-email';
import { RequestCounter } from './accounts/request-counter';
import type { WebhookDeps } from './webhooks/delivery-attempts';
import { createWebhookSender } from './webhooks/http-sender';
import type { WebhookUrlPolicy } from './webhooks/register-endpoint';
import type { Resolver } from './webhooks/url-guard';
import { createSecretBox } from './webhooks/secret-box';
import { loadSecretKeys } from './webhooks/secret-keys';
import type { Env } from './env';
import { ExtractiveSummarizer } from './summaries/extractive-summarizer';
import { OpenAISummarizer } from './summaries/openai-summarizer';
import type { Summarizer } from './summaries/summarizer';

/** The configured implementations that services need besides the database. */
export interface Services {
  embedder: EmbeddingProvider;
  summarizer: Summarizer;
  /** Accounts with at most this many candidate vectors are searched exactly (see vector-search.ts). */
  exactSearchMaxRows: number;
  /** The service's one mailer: sign-up mails, webhook deactivation notices. */
  mailer: Mailer;
  /** Where the emailed links point, and who the operators are (ADMIN_EMAILS, lower case). */
  accounts: { appUrl: string; operators: readonly string[] };
  /** Webhook delivery: the SSRF-guarded sender, retry delays, the URL policy. */
  webhooks: Omit<WebhookDeps, 'mailer'> & WebhookUrlPolicy;
  /** Called after a commit that queued background work: look for due work now, not at the next tick. */
  kick(): void;
  /** Authenticates and counts API requests: this process's blocks of quota and unwritten usage. */
  requests: RequestCounter;
}

/**
 * With the local embedder, passages are embedded inside the request that stores the transcript
 * (it is fast and offline), so a note is searchable as soon as it exists. The semantic model (on
 * its own thread, see use-lite-worker.ts) and a remote provider are called from the background
 * worker instead, never while a transaction is open.
 */
export function embedsInline(embedder: EmbeddingProvider): boolean {
  return embedder instanceof LocalEmbedder;
}

/** A setting env validation (server/env.ts) already requires in this configuration. */
function required(name: string, value: string | undefined): string {
  if (value === undefined) throw new Error(`Invalid configuration: ${name} is required but not set`);
  return value;
}

/**
 * The semantic model's threads: EMBEDDING_THREADS, else every core on a machine of one or two
 * (embedding a backlog then uses both, at a lower priority than requests; a search's query that
 * finds them busy gets a thread of its own) and all but one on a bigger one, left to requests.
 */
export function embeddingThreads(env: Pick<Env, 'EMBEDDING_THREADS'>): number {
  if (env.EMBEDDING_THREADS > 0) return env.EMBEDDING_THREADS;
  const cores = availableParallelism();
  return cores <= 2 ? cores : cores - 1;
}

export function createServices(
  env: Env,
  kick: () => void = () => {},
  opts: {
    resolve?: Resolver;
    /** Keeps a serverless function up after its response until the usage it counted is written. */
    onCountsWriteScheduled?: (written: Promise<void>) => void;
  } = {},
): Services {
  const embedder =
    env.EMBEDDINGS_PROVIDER === 'openai'
      ? new OpenAIEmbedder({
          baseUrl: required('EMBEDDINGS_BASE_URL', env.EMBEDDINGS_BASE_URL),
          ...(env.EMBEDDINGS_API_KEY && { apiKey: env.EMBEDDINGS_API_KEY }),
          model: required('EMBEDDINGS_MODEL', env.EMBEDDINGS_MODEL),
          dimensions: env.EMBEDDINGS_DIMENSIONS,
        })
      : env.EMBEDDINGS_PROVIDER === 'semantic'
        ? new SemanticEmbedder({
            dimensions: env.EMBEDDINGS_DIMENSIONS,
            load: pooledUseLiteLoader(embeddingThreads(env)),
            parallelism: embeddingThreads(env),
          })
        : new LocalEmbedder({ dimensions: env.EMBEDDINGS_DIMENSIONS });
  const summarizer = env.LLM_MODEL
    ? new OpenAISummarizer({
        baseUrl: required('LLM_BASE_URL', env.LLM_BASE_URL),
        ...(env.LLM_API_KEY && { apiKey: env.LLM_API_KEY }),
        model: env.LLM_MODEL,
      })
    : new ExtractiveSummarizer();
  const mailer = createMailer({ smtpUrl: env.SMTP_URL, from: env.EMAIL_FROM });
  const allowPrivateUrls = env.WEBHOOK_ALLOW_PRIVATE_URLS;
  const appUrl = (env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  const sender = createWebhookSender({
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    allowPrivate: allowPrivateUrls,
    ...(opts.resolve && { resolve: opts.resolve }),
  });
  return {
    embedder,
    summarizer,
    exactSearchMaxRows: env.SEARCH_EXACT_MAX_ROWS,
    mailer,
    accounts: { appUrl, operators: env.ADMIN_EMAILS },
    webhooks: {
      sender,
      retryDelays: env.WEBHOOK_RETRY_DELAYS,
      secrets: createSecretBox(loadSecretKeys(env)),
      appUrl,
      allowPrivateUrls,
      ...(opts.resolve && { resolve: opts.resolve }),
    },
    kick,
    requests: new RequestCounter({
      ...(opts.onCountsWriteScheduled && { onWriteScheduled: opts.onCountsWriteScheduled }),
    }),
  };
}
