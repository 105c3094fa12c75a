// The preparing half of `npm start` (scripts/start.mjs runs it as a child process that exits):
// migrates (with MIGRATE_ON_START=false, checks that `npm run db:migrate` ran), seals legacy
// webhook secrets, seeds the embedded database on its first run (the demo's meetings are embedded
// here, by the model on this process's thread), and makes the next-auth secret. Its memory — tsx,
// the migrations, the seed, the model — leaves with it, so the server that stays resident is Next
// alone. What the server needs to know is written as JSON to file descriptor 3, which start.mjs
// reads.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { count } from 'drizzle-orm';
import { DatabaseInUseError, PendingMigrationsError } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { accounts } from '../server/db/schema';
import { EnvError, getEnv } from '../server/env';
import { seedDemo } from '../server/seed/seed-demo';
import { createServices } from '../server/services';
import { sealLegacySecrets } from '../server/webhooks/seal-secrets';
import { createSecretBox } from '../server/webhooks/secret-box';
import { loadSecretKeys } from '../server/webhooks/secret-keys';

async function prepareDatabase() {
  const env = getEnv();
  const database = await openConfiguredDatabase();
  try {
    console.log(
      `Database: ${database.kind === 'pglite' ? `embedded PGlite in ${database.location}` : database.location} (${
        database.migrations ? 'migrated' : 'migrations checked: MIGRATE_ON_START=false'
      })`,
    );
    // Webhook signing secrets stored before encryption are sealed now.
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

try {
  const env = getEnv();
  await prepareDatabase();
  // The server runs from .next/standalone (its server.js changes to that folder), so a relative
  // DATA_DIR is resolved here, against the folder `npm start` was run in.
  const handover = JSON.stringify({
    port: env.PORT,
    env: { ...authEnvironment(env), DATA_DIR: path.resolve(env.DATA_DIR) },
  });
  // fd 3 is start.mjs's pipe; run alone (no fd 3), this only prepares.
  try {
    fs.writeSync(3, handover);
  } catch {}
  // The seed's model thread and pools would otherwise keep this process a while.
  process.exit(0);
} catch (err: unknown) {
  if (err instanceof EnvError || err instanceof DatabaseInUseError || err instanceof PendingMigrationsError)
    console.error(err.message);
  else console.error(err);
  process.exit(1);
}
