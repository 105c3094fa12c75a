import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { decodeSecretsKey, type Env } from '../env';
import { log } from '../log';

/** The keys of the secret box (secret-box.ts): new values are sealed under `current`. */
export interface SecretKeys {
  current: Uint8Array;
  /** Keys that still open values sealed under them (SECRETS_PREVIOUS_KEYS, during a key rotation). */
  previous: Uint8Array[];
}

/** The file that holds the generated key when SECRETS_KEY is not set. */
export const SECRETS_KEY_FILE = 'secrets-key';

/** Generated or read keys, by the file's resolved path: services are created many times in a test run. */
const fileKeys = new Map<string, Buffer>();

/**
 * The keys webhook signing secrets are sealed under at rest: SECRETS_KEY, or
 * else a key generated once into `<DATA_DIR>/secrets-key` (mode 600), the way scripts/prepare.ts
 * keeps next-auth's secret, so a development install needs no setting and its secrets survive
 * restarts. SECRETS_PREVIOUS_KEYS still open what was sealed under them. Production must set
 * SECRETS_KEY (server/env.ts refuses to start without it under VERCEL_ENV=production or
 * APP_ENV=production).
 */
export function loadSecretKeys(env: Env): SecretKeys {
  const previous = [...env.SECRETS_PREVIOUS_KEYS];
  if (env.SECRETS_KEY) return { current: env.SECRETS_KEY, previous };
  const file = path.resolve(env.DATA_DIR, SECRETS_KEY_FILE);
  let key = fileKeys.get(file);
  if (!key) {
    key = readOrCreateKeyFile(file);
    fileKeys.set(file, key);
    if (env.DATABASE_URL)
      log.warn('SECRETS_KEY is not set: webhook secrets are sealed under a key generated into DATA_DIR', {
        file,
        hint: 'every instance that shares DATABASE_URL needs the same key: set SECRETS_KEY (see docs/security.md#webhook-secrets-at-rest)',
      });
  }
  return { current: key, previous };
}

const WAIT_FOR_WRITER_MS = 20;
const WAIT_FOR_WRITER_TRIES = 50;

/**
 * Creates the key file with 'wx', so of two processes starting at once one writes it and the
 * other (EEXIST) reads what the first wrote: both end with the same key. The reader waits a
 * moment for the writer if the file is still empty.
 */
function readOrCreateKeyFile(file: string): Buffer {
  const text = randomBytes(32).toString('base64url');
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${text}\n`, { flag: 'wx', mode: 0o600 });
    return Buffer.from(text, 'base64url');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new Error(
        `Cannot create the webhook secrets key file ${file} (${(err as Error).message}): set SECRETS_KEY, or make DATA_DIR writable`,
      );
  }
  for (let i = 0; ; i++) {
    const content = fs.readFileSync(file, 'utf8');
    const key = decodeSecretsKey(content);
    if (key) return key;
    // Another process created it a moment ago and is still writing: wait for it, a little.
    if (content.trim() === '' && i < WAIT_FOR_WRITER_TRIES) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAIT_FOR_WRITER_MS);
      continue;
    }
    throw new Error(
      `The webhook secrets key file ${file} does not hold a key (32 bytes as base64, base64url or hex). ` +
        'Restore it, or set SECRETS_KEY; deleting it makes every secret sealed under it unreadable.',
    );
  }
}
