// npm run secrets:rotate-key: re-seals every webhook signing secret under SECRETS_KEY
// (docs/security.md#webhook-secrets-at-rest). With every instance already running on the new key:
//
//   SECRETS_KEY=<new key> SECRETS_PREVIOUS_KEYS=<old key>[,<older key>…] npm run secrets:rotate-key
//
// opens the configured database, re-seals each value not sealed under SECRETS_KEY (plaintext left
// from before encryption is sealed too), prints the counts, and says when the old keys can go.
// `npm run --silent secrets:rotate-key -- --generate` prints a fresh key and touches nothing.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DatabaseInUseError, PendingMigrationsError } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { EnvError, getEnv } from '../server/env';
import { resealSecrets } from '../server/webhooks/seal-secrets';
import { createSecretBox, keyIdOf } from '../server/webhooks/secret-box';

const USAGE = `Usage:
  SECRETS_KEY=<new key> SECRETS_PREVIOUS_KEYS=<old key>[,…] npm run secrets:rotate-key
      re-seals every webhook signing secret under SECRETS_KEY; then the old keys can be removed
  npm run --silent secrets:rotate-key -- --generate
      prints a fresh key (32 random bytes, base64url) for SECRETS_KEY`;

class UsageError extends Error {}

async function rotate(): Promise<number> {
  const env = getEnv();
  if (!env.SECRETS_KEY)
    throw new UsageError(
      'SECRETS_KEY is not set: set it to the new key (--generate prints one) and SECRETS_PREVIOUS_KEYS to the old one(s).',
    );
  const box = createSecretBox({ current: env.SECRETS_KEY, previous: env.SECRETS_PREVIOUS_KEYS });
  const oldIds = [...new Set(env.SECRETS_PREVIOUS_KEYS.map(keyIdOf))].filter((id) => id !== box.currentKeyId);
  const database = await openConfiguredDatabase();
  try {
    console.log(`Database: ${database.location}`);
    console.log(
      `Sealing every webhook signing secret under key ${box.currentKeyId} (SECRETS_KEY); ` +
        `opening with ${oldIds.length ? `key${oldIds.length > 1 ? 's' : ''} ${oldIds.join(', ')} (SECRETS_PREVIOUS_KEYS)` : 'no previous key'}.`,
    );
    const result = await resealSecrets(database.db, box);
    console.log(
      `Re-sealed ${result.resealed} secret${result.resealed === 1 ? '' : 's'} sealed under an older key.`,
    );
    if (result.sealed > 0)
      console.log(`Sealed ${result.sealed} secret${result.sealed === 1 ? '' : 's'} stored in plaintext.`);
    for (const u of result.unreadable)
      console.error(`Could not open endpoint ${u.endpointId}'s ${u.column}: ${u.error}`);
    if (result.unreadable.length > 0 || result.remaining > 0) {
      console.error(
        `${result.remaining} stored secret${result.remaining === 1 ? ' is' : 's are'} still not sealed under key ${box.currentKeyId}. ` +
          'Keep the old keys: add any missing key to SECRETS_PREVIOUS_KEYS, make sure every instance runs with this SECRETS_KEY, and run this again.',
      );
      return 1;
    }
    console.log(
      `Done: every webhook signing secret is sealed under key ${box.currentKeyId}. ` +
        (oldIds.length
          ? `Once every instance runs with this SECRETS_KEY, remove the old key${oldIds.length > 1 ? 's' : ''} (SECRETS_PREVIOUS_KEYS) from the configuration.`
          : 'No old key is needed.'),
    );
    return 0;
  } finally {
    await database.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { generate: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.generate) {
    console.log(randomBytes(32).toString('base64url'));
    return 0;
  }
  return rotate();
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) console.error(`${err.message}\n\n${USAGE}`);
    else if (
      err instanceof EnvError ||
      err instanceof DatabaseInUseError ||
      err instanceof PendingMigrationsError
    )
      console.error(err.message);
    else if (err instanceof Error && err.name === 'TypeError' && 'code' in err)
      console.error(`${err.message}\n\n${USAGE}`); // parseArgs: an unknown or malformed option
    else console.error(err);
    process.exit(1);
  },
);
