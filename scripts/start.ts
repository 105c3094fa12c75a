// npm start: builds if needed, migrates, seeds the embedded database on its first run, serves.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { count } from 'drizzle-orm';
import { DatabaseInUseError } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { accounts } from '../server/db/schema';
import { EnvError, getEnv } from '../server/env';
import { seedDemo } from '../server/seed/seed-demo';
import { createServices } from '../server/services';
import { sealLegacySecrets } from '../server/webhooks/seal-secrets';
import { createSecretBox } from '../server/webhooks/secret-box';
import { loadSecretKeys } from '../server/webhooks/secret-keys';

const root = path.resolve(import.meta.dirname, '..');
const SOURCES = [
  'app',
  'server',
  'components',
  'drizzle',
  'package.json',
  'next.config.mjs',
  'instrumentation.ts',
  'proxy.ts',
];

function newestMtime(p: string): number {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(full)
    .reduce((max, name) => Math.max(max, newestMtime(path.join(p, name))), stat.mtimeMs);
}

function buildIfNeeded() {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
  if (built && SOURCES.every((s) => newestMtime(s) <= built)) return;
  console.log(
    built ? 'Sources changed since the last build: building…' : 'No build yet: building (about a minute)…',
  );
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

async function prepareDatabase() {
  const env = getEnv();
  const database = await openConfiguredDatabase();
  try {
    console.log(
      `Database: ${database.kind === 'pglite' ? `embedded PGlite in ${database.location}` : database.location} (migrated)`,
    );
    // Issue 12 item 7: webhook signing secrets stored before encryption are sealed now.
    const sealed = await sealLegacySecrets(database.db, createSecretBox(loadSecretKeys(env)));
    if (sealed > 0)
      console.log(
        `Encrypted ${sealed} webhook signing secret${sealed === 1 ? '' : 's'} stored in plaintext.`,
      );
    // Only the embedded database is ever seeded; a server named by DATABASE_URL never is.
    if (database.kind !== 'pglite') return;
    const [row] = await database.db.select({ n: count() }).from(accounts);
    if ((row?.n ?? 0) > 0) return;
    const demo = await seedDemo(database.db, createServices(env));
    const base = `http://localhost:${env.PORT}`;
    console.log(
      [
        '',
        'First run: seeded a demo account with a dozen meetings.',
        `  Login:    ${demo.email}`,
        `  Password: ${demo.password}`,
        `  API key:  ${demo.api_key}   (Form A; add the header "X-API-Form: B" for Form B)`,
        '',
        `  curl -H "Authorization: Bearer ${demo.api_key}" ${base}/v1/notes`,
        '',
        'These are shown once. Keep them somewhere safe.',
        '',
      ].join('\n'),
    );
  } finally {
    await database.close();
  }
}

/**
 * next-auth needs a secret to sign sessions. Without NEXTAUTH_SECRET one is made once and kept
 * beside the data (mode 600), so sessions survive restarts; and without NEXTAUTH_URL the
 * request's own host is trusted, so both localhost and 127.0.0.1 work on a developer machine.
 */
function authEnvironment(env: ReturnType<typeof getEnv>): Record<string, string> {
  const extra: Record<string, string> = {};
  if (!env.NEXTAUTH_SECRET) {
    const file = path.resolve(env.DATA_DIR, 'nextauth-secret');
    if (!fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
    }
    extra.NEXTAUTH_SECRET = fs.readFileSync(file, 'utf8').trim();
  }
  if (!env.NEXTAUTH_URL) extra.AUTH_TRUST_HOST = 'true';
  return extra;
}

async function main() {
  const env = getEnv();
  buildIfNeeded();
  await prepareDatabase();
  // Next reads these when it loads; `next start` would set NODE_ENV the same way.
  Object.assign(process.env, { NODE_ENV: 'production', ...authEnvironment(env) });
  const { serveNext } = await import('../server/runtime/serve-next');
  const server = await serveNext({ dir: root, port: env.PORT });
  console.log(`Ready on ${server.url}`);
  // As `next start` does: stop taking requests and exit; the database needs no goodbye.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => server.close().finally(() => process.exit(0)));
}

main().catch((err: unknown) => {
  if (err instanceof EnvError || err instanceof DatabaseInUseError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
