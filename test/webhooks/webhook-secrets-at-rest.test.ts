import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../server/accounts/accounts';
import { openPglite, type Database, type Db } from '../../server/db/client';
import { webhookEndpoints } from '../../server/db/schema';
import { EnvError, parseEnv } from '../../server/env';
import { runDueWork } from '../../server/worker/run-due-work';
import { resealSecrets, sealLegacySecrets } from '../../server/webhooks/seal-secrets';
import { createSecretBox, isSealed, keyIdOf, type SecretBox } from '../../server/webhooks/secret-box';
import { loadSecretKeys } from '../../server/webhooks/secret-keys';
import { createTestDatabase, migratedPgliteFolder, testDatabaseKind } from '../support/test-database';
import { startTestApp, type TestApp } from '../support/test-app';

// Webhook signing secrets (docs/rules.md#webhook-urls-and-secrets) are encrypted at rest under
// SECRETS_KEY (server/webhooks/secret-box.ts, secret-keys.ts, seal-secrets.ts), legacy plaintext
// rows are sealed, and the key can be rotated (scripts/rotate-secrets-key.ts). The database tests
// run on PGlite, or on the PostgreSQL server named by TEST_DATABASE_URL.

const ROOT = path.resolve(import.meta.dirname, '../..');
const key = () => randomBytes(32);
const formA = () => `whsec_${randomBytes(32).toString('base64')}`;
const formB = () => randomBytes(32).toString('hex');
const tmpDirs: string[] = [];
const tmpDir = (label: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mn-secrets-${label}-`));
  tmpDirs.push(dir);
  return dir;
};

afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('the secret box: webhook secrets sealed under SECRETS_KEY', () => {
  const k1 = key();
  const box = createSecretBox({ current: k1 });

  it.each([
    ['Form A', formA()],
    ['Form B', formB()],
  ])('seals a %s secret into a value naming its key, and opens it again', (_form, secret) => {
    const sealed = box.seal(secret);
    expect(sealed).toMatch(new RegExp(`^enc:v1:${keyIdOf(k1)}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
    expect(box.currentKeyId).toBe(keyIdOf(k1));
    expect(keyIdOf(k1)).toMatch(/^[0-9a-f]{8}$/);
    expect(sealed).not.toContain(secret);
    expect(isSealed(sealed)).toBe(true);
    expect(box.isCurrent(sealed)).toBe(true);
    expect(box.open(sealed)).toBe(secret);
    // A fresh IV each time: equal secrets do not give equal values.
    expect(box.seal(secret)).not.toBe(sealed);
  });

  it('a legacy plaintext value opens as itself and is not current', () => {
    const secret = formA();
    expect(isSealed(secret)).toBe(false);
    expect(box.open(secret)).toBe(secret);
    expect(box.isCurrent(secret)).toBe(false);
  });

  it('tampering fails: a changed byte, a relabelled key id, a truncated or shortened tag', () => {
    const sealed = box.seal(formA());
    const [prefix, version, id, iv, data] = sealed.split(':') as [string, string, string, string, string];
    const bytes = Buffer.from(data, 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    const flipped = [prefix, version, id, iv, bytes.toString('base64url')].join(':');
    expect(() => box.open(flipped)).toThrow(/does not authenticate/);

    const tag = Buffer.from(data, 'base64url');
    tag[tag.length - 1] = (tag[tag.length - 1] ?? 0) ^ 1;
    expect(() => box.open([prefix, version, id, iv, tag.toString('base64url')].join(':'))).toThrow(
      /does not authenticate/,
    );

    // The key id is authenticated: a value relabelled to another configured key does not open.
    const k2 = key();
    const both = createSecretBox({ current: k2, previous: [k1] });
    const relabelled = [prefix, version, keyIdOf(k2), iv, data].join(':');
    expect(() => both.open(relabelled)).toThrow(/does not authenticate/);

    // The tag is always the last 16 bytes (a shortened value does not pass with a shorter tag),
    // and a value too short to hold one is refused as truncated.
    const short = Buffer.from(data, 'base64url').subarray(0, -12).toString('base64url');
    expect(() => box.open([prefix, version, id, iv, short].join(':'))).toThrow(/Cannot open/);
    expect(() => box.open([prefix, version, id, iv, 'AAAA'].join(':'))).toThrow(/truncated/);
    expect(() => box.open(`enc:v1:${id}:`)).toThrow(/not a well-formed sealed value/);
    // A later format is never taken for plaintext.
    expect(() => box.open(`enc:v2:${id}:${iv}:${data}`)).toThrow(/unknown format \(enc:v2:…\)/);
  });

  it('a value sealed under a key that is not configured fails with a message naming both keys', () => {
    const other = createSecretBox({ current: key() });
    const err = thrown(() => other.open(box.seal(formB())));
    expect(err.message).toContain(`sealed under key ${keyIdOf(k1)}: that key is not configured`);
    expect(err.message).toContain(other.currentKeyId);
    expect(err.message).toContain('SECRETS_PREVIOUS_KEYS');
  });

  it('a previous key still opens what it sealed; new values name the current key', () => {
    const old = box.seal('whsec_old');
    const rotated = createSecretBox({ current: key(), previous: [k1] });
    expect(rotated.open(old)).toBe('whsec_old');
    expect(rotated.isCurrent(old)).toBe(false);
    expect(rotated.isCurrent(rotated.seal('x'))).toBe(true);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => createSecretBox({ current: randomBytes(16) })).toThrow(/32 bytes, got 16/);
  });
});

describe('SECRETS_KEY, SECRETS_PREVIOUS_KEYS and loadSecretKeys', () => {
  const bytes = key();
  const spellings: [string, string][] = [
    ['base64url, 43 characters', bytes.toString('base64url')],
    ['base64, 44 characters with padding', bytes.toString('base64')],
    ['lowercase hex, 64 digits', bytes.toString('hex')],
    ['uppercase hex', bytes.toString('hex').toUpperCase()],
    ['surrounded by blanks', `  ${bytes.toString('base64url')}\n`],
  ];

  it.each(spellings)('accepts a key as %s', (_label, value) => {
    const env = parseEnv({ SECRETS_KEY: value });
    expect(Buffer.from(env.SECRETS_KEY!).equals(bytes)).toBe(true);
    const keys = loadSecretKeys(env);
    expect(Buffer.from(keys.current).equals(bytes)).toBe(true);
    expect(keys.previous).toEqual([]);
  });

  it.each([
    ['too short', randomBytes(16).toString('base64url')],
    ['44 characters without padding (33 bytes)', randomBytes(33).toString('base64url')],
    ['63 hex digits', randomBytes(32).toString('hex').slice(1)],
    ['65 hex digits', `${randomBytes(32).toString('hex')}a`],
    ['a passphrase', 'correct horse battery staple, but not a key'],
    ['48 bytes of base64', randomBytes(48).toString('base64')],
  ])('refuses to start with a SECRETS_KEY that is %s, without echoing it', (_label, value) => {
    const err = thrown(() => parseEnv({ SECRETS_KEY: value }));
    expect(err).toBeInstanceOf(EnvError);
    expect((err as EnvError).problems).toHaveLength(1);
    expect(err.message).toMatch(
      /SECRETS_KEY must be 32 bytes written as base64 or base64url .* or as 64 hex digits/,
    );
    expect(err.message).not.toContain(value);
  });

  it('SECRETS_PREVIOUS_KEYS: a comma-separated list in any accepted spelling; a bad entry is named by position', () => {
    const [a, b] = [key(), key()];
    const env = parseEnv({
      SECRETS_KEY: key().toString('hex'),
      SECRETS_PREVIOUS_KEYS: ` ${a.toString('base64url')} , ${b.toString('hex')},`,
    });
    expect(loadSecretKeys(env).previous.map((k) => Buffer.from(k).toString('hex'))).toEqual([
      a.toString('hex'),
      b.toString('hex'),
    ]);
    expect(parseEnv({}).SECRETS_PREVIOUS_KEYS).toEqual([]);
    const err = thrown(() => parseEnv({ SECRETS_PREVIOUS_KEYS: `${a.toString('hex')},oops` }));
    expect(err).toBeInstanceOf(EnvError);
    expect(err.message).toContain('SECRETS_PREVIOUS_KEYS: key 2 of 2 must be 32 bytes');
  });

  it('VERCEL_ENV=production refuses to start without SECRETS_KEY', () => {
    const err = thrown(() =>
      parseEnv({ VERCEL_ENV: 'production', CRON_SECRET: 's3cret', SMTP_URL: 'smtp://mail.example.com' }),
    );
    expect(err).toBeInstanceOf(EnvError);
    expect((err as EnvError).problems).toHaveLength(1);
    expect(err.message).toContain('SECRETS_KEY is required with VERCEL_ENV=production');
    const blank = thrown(() => parseEnv({ VERCEL_ENV: 'production', CRON_SECRET: 's', SECRETS_KEY: ' ' }));
    expect(blank.message).toContain('SECRETS_KEY is required');
    expect(
      parseEnv({
        VERCEL_ENV: 'production',
        CRON_SECRET: 's',
        SECRETS_KEY: key().toString('base64url'),
        SMTP_URL: 'smtp://mail.example.com',
      }).SECRETS_KEY,
    ).toBeDefined();
    expect(parseEnv({ VERCEL_ENV: 'preview' }).SECRETS_KEY).toBeUndefined();
  });

  it('without SECRETS_KEY a key is generated once into DATA_DIR/secrets-key (mode 600) and kept', () => {
    const dataDir = path.join(tmpDir('gen'), 'not-yet-there');
    const env = parseEnv({ DATA_DIR: dataDir });
    const first = loadSecretKeys(env);
    const file = path.join(dataDir, 'secrets-key');
    const text = fs.readFileSync(file, 'utf8').trim();
    expect(text).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first.current).equals(Buffer.from(text, 'base64url'))).toBe(true);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(
      Buffer.from(loadSecretKeys(parseEnv({ DATA_DIR: dataDir })).current).equals(Buffer.from(first.current)),
    ).toBe(true);
    // SECRETS_PREVIOUS_KEYS apply beside a generated key too.
    const old = key();
    const keys = loadSecretKeys(parseEnv({ DATA_DIR: dataDir, SECRETS_PREVIOUS_KEYS: old.toString('hex') }));
    expect(Buffer.from(keys.previous[0]!).equals(old)).toBe(true);
  });

  it('a key file written by another process (it won the race) is read, not replaced', () => {
    const dataDir = tmpDir('existing');
    const theirs = key();
    fs.writeFileSync(path.join(dataDir, 'secrets-key'), `${theirs.toString('base64url')}\n`, { mode: 0o600 });
    expect(Buffer.from(loadSecretKeys(parseEnv({ DATA_DIR: dataDir })).current).equals(theirs)).toBe(true);
  });

  it('a key file that holds no key is refused with a clear message', () => {
    const dataDir = tmpDir('garbage');
    fs.writeFileSync(path.join(dataDir, 'secrets-key'), 'not a key\n');
    expect(() => loadSecretKeys(parseEnv({ DATA_DIR: dataDir }))).toThrow(
      /does not hold a key .*set SECRETS_KEY/,
    );
  });

  it('processes that start at once on a fresh DATA_DIR all end with the same key', async () => {
    const dataDir = tmpDir('race');
    const program = [
      "import { parseEnv } from './server/env';",
      "import { keyIdOf } from './server/webhooks/secret-box';",
      "import { loadSecretKeys } from './server/webhooks/secret-keys';",
      'console.log(keyIdOf(loadSecretKeys(parseEnv(process.env)).current));',
    ].join('\n');
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['--eval', program], {
            cwd: ROOT,
            env: { ...process.env, DATA_DIR: dataDir, SECRETS_KEY: '', SECRETS_PREVIOUS_KEYS: '' },
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
          });
          child.stderr.on('data', (c: Buffer) => {
            err += c.toString();
          });
          child.on('close', (code) => resolve({ code, out: out.trim(), err }));
        }),
    );
    const results = await Promise.all(runs);
    for (const r of results) expect(r.code, r.err).toBe(0);
    const fileKey = Buffer.from(
      fs.readFileSync(path.join(dataDir, 'secrets-key'), 'utf8').trim(),
      'base64url',
    );
    expect(new Set(results.map((r) => r.out))).toEqual(new Set([keyIdOf(fileKey)]));
  });
});

// ---------------------------------------------------------------------------------------------
// The stored values, on the test database.

describe(`stored secrets on ${testDatabaseKind}`, () => {
  let database: Database;
  let db: Db;
  let accountId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.db;
  });
  afterAll(async () => {
    await database?.close();
  });

  async function freshAccount(): Promise<string> {
    const account = await createAccount(db, { email: `secrets-${randomUUID()}@example.com` });
    accountId = account.id;
    return accountId;
  }

  /** Endpoints inserted as stored values, the way rows from before encryption look. */
  async function insertEndpoints(
    rows: { secret: string; previousSecret?: string | null }[],
  ): Promise<string[]> {
    const now = new Date();
    const values = rows.map((r, i) => ({
      id: randomUUID(),
      accountId,
      url: `https://hooks.example.com/${i}-${randomUUID()}`,
      events: ['meeting.started' as const],
      form: 'A' as const,
      secret: r.secret,
      previousSecret: r.previousSecret ?? null,
      previousSecretExpiresAt: r.previousSecret ? new Date(now.getTime() + 86_400_000) : null,
      activeSince: now,
      createdAt: now,
    }));
    await db.insert(webhookEndpoints).values(values);
    return values.map((v) => v.id);
  }

  async function stored(ids: string[]) {
    const rows = await db
      .select({
        id: webhookEndpoints.id,
        secret: webhookEndpoints.secret,
        previous: webhookEndpoints.previousSecret,
      })
      .from(webhookEndpoints)
      .where(inArray(webhookEndpoints.id, ids));
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Every endpoint of the database, so a test starts from rows it knows. */
  const clearEndpoints = () => db.delete(webhookEndpoints);

  it('sealLegacySecrets seals every plaintext secret and previous secret, in batches, once (idempotent)', async () => {
    await clearEndpoints();
    await freshAccount();
    const box = createSecretBox({ current: key() });
    // 230 endpoints: more than two batches of 100.
    const plain = Array.from({ length: 230 }, (_, i) => ({
      secret: i % 2 ? formA() : formB(),
      previousSecret: i % 3 === 0 ? formA() : null,
    }));
    const alreadySealed = box.seal(formA());
    const ids = await insertEndpoints([...plain, { secret: alreadySealed }]);
    const plaintextValues = plain.length + plain.filter((p) => p.previousSecret).length;

    expect(await sealLegacySecrets(db, box)).toBe(plaintextValues);
    const after = await stored(ids);
    plain.forEach((p, i) => {
      const row = after.get(ids[i]!)!;
      expect(row.secret).not.toBe(p.secret);
      expect(box.isCurrent(row.secret)).toBe(true);
      expect(box.open(row.secret)).toBe(p.secret);
      if (p.previousSecret) {
        expect(box.isCurrent(row.previous!)).toBe(true);
        expect(box.open(row.previous!)).toBe(p.previousSecret);
      } else expect(row.previous).toBeNull();
    });
    expect(after.get(ids.at(-1)!)!.secret).toBe(alreadySealed);

    // Again: nothing to do, nothing changes.
    expect(await sealLegacySecrets(db, box)).toBe(0);
    expect(await stored(ids)).toEqual(after);
  });

  it('two sealing passes at once seal each value exactly once (each write is conditional on the value read)', async () => {
    await clearEndpoints();
    await freshAccount();
    const box = createSecretBox({ current: key() });
    const plain = Array.from({ length: 60 }, () => ({ secret: formA(), previousSecret: formB() }));
    const ids = await insertEndpoints(plain);
    const counts = await Promise.all([sealLegacySecrets(db, box), sealLegacySecrets(db, box)]);
    expect(counts[0] + counts[1]).toBe(120);
    const after = await stored(ids);
    plain.forEach((p, i) => {
      const row = after.get(ids[i]!)!;
      expect(box.open(row.secret)).toBe(p.secret);
      expect(box.open(row.previous!)).toBe(p.previousSecret);
    });
  });

  it('a value changed after it was read (a concurrent rotation) is not overwritten', async () => {
    await clearEndpoints();
    await freshAccount();
    const box = createSecretBox({ current: key() });
    const [id] = await insertEndpoints([{ secret: 'whsec_legacy' }]);
    const rotatedMeanwhile = box.seal('whsec_rotated');
    // The box seals between the read and the conditional write: the "rotation" is sent to the
    // database right then, ahead of the sealing write.
    let rotation: Promise<unknown> | undefined;
    const racing: SecretBox = {
      ...box,
      seal(plaintext) {
        rotation ??= db
          .update(webhookEndpoints)
          .set({ secret: rotatedMeanwhile })
          .where(eq(webhookEndpoints.id, id!))
          .then(() => undefined);
        return box.seal(plaintext);
      },
    };
    const n = await sealLegacySecrets(db, racing);
    await rotation;
    // Whichever write the database ran first, the rotation's value stands, never the legacy one.
    expect((await stored([id!])).get(id!)!.secret).toBe(rotatedMeanwhile);
    expect(n).toBeLessThanOrEqual(1);
    // PGlite runs statements in the order they were sent: the sealing write found the value changed.
    if (testDatabaseKind === 'pglite') expect(n).toBe(0);
  });

  it('resealSecrets moves every value to the new key; afterwards the old keys are unnecessary', async () => {
    await clearEndpoints();
    await freshAccount();
    const [k0, k1, k2] = [key(), key(), key()];
    const oldest = createSecretBox({ current: k0 });
    const old = createSecretBox({ current: k1, previous: [k0] });
    const originals = Array.from({ length: 130 }, () => ({ secret: formA(), previous: formB() }));
    const ids = await insertEndpoints([
      ...originals.map((o, i) => ({
        secret: old.seal(o.secret),
        previousSecret: i % 2 ? oldest.seal(o.previous) : null,
      })),
      { secret: 'whsec_still_plaintext' },
    ]);
    const newBox = createSecretBox({ current: k2, previous: [k1, k0] });
    const alreadyCurrent = newBox.seal('whsec_current');
    const [currentId] = await insertEndpoints([{ secret: alreadyCurrent }]);

    const result = await resealSecrets(db, newBox);
    expect(result).toEqual({ sealed: 1, resealed: 130 + 65, unreadable: [], remaining: 0 });

    const onlyNew = createSecretBox({ current: k2 });
    const after = await stored([...ids, currentId!]);
    originals.forEach((o, i) => {
      const row = after.get(ids[i]!)!;
      expect(onlyNew.isCurrent(row.secret)).toBe(true);
      expect(onlyNew.open(row.secret)).toBe(o.secret);
      if (i % 2) expect(onlyNew.open(row.previous!)).toBe(o.previous);
      else expect(row.previous).toBeNull();
      expect(() => old.open(row.secret)).toThrow(/not configured/);
    });
    expect(onlyNew.open(after.get(ids.at(-1)!)!.secret)).toBe('whsec_still_plaintext');
    expect(after.get(currentId!)!.secret).toBe(alreadyCurrent);

    // Nothing left to do: a second run changes nothing.
    expect(await resealSecrets(db, onlyNew)).toEqual({
      sealed: 0,
      resealed: 0,
      unreadable: [],
      remaining: 0,
    });
    expect(await stored([...ids, currentId!])).toEqual(after);
  });

  it('resealSecrets leaves a value no configured key opens as it is, and reports it', async () => {
    await clearEndpoints();
    await freshAccount();
    const lost = createSecretBox({ current: key() });
    const box = createSecretBox({ current: key() });
    const unknownValue = lost.seal('whsec_lost');
    const [id, okId] = await insertEndpoints([{ secret: unknownValue }, { secret: 'whsec_plain' }]);
    const result = await resealSecrets(db, box);
    expect(result.sealed).toBe(1);
    expect(result.resealed).toBe(0);
    expect(result.remaining).toBe(1);
    expect(result.unreadable).toEqual([
      { endpointId: id, column: 'secret', error: expect.stringContaining(`key ${lost.currentKeyId}`) },
    ]);
    const after = await stored([id!, okId!]);
    expect(after.get(id!)!.secret).toBe(unknownValue);
    expect(box.open(after.get(okId!)!.secret)).toBe('whsec_plain');
  });

  it('scripts/rotate-secrets-key.ts: --generate prints a usable key; a rotation re-seals, prints counts, and frees the old key', async () => {
    const generated = spawnSync(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['scripts/rotate-secrets-key.ts', '--generate'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(generated.status, generated.stderr).toBe(0);
    const fresh = generated.stdout.trim();
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(parseEnv({ SECRETS_KEY: fresh }).SECRETS_KEY).toHaveLength(32);

    // The script opens the configured database: a PGlite folder of its own, or this PostgreSQL database.
    const [oldKey, newKey] = [key(), key()];
    const oldBox = createSecretBox({ current: oldKey });
    const dataDir = database.url ? tmpDir('rotate') : await migratedPgliteFolder('secrets-rotate');
    if (!database.url) tmpDirs.push(dataDir);
    const target = database.url ? database : await openPglite(dataDir);
    const account = await createAccount(target.db, { email: `rotate-${randomUUID()}@example.com` });
    const now = new Date();
    const secrets = [formA(), formB(), formA()];
    await target.db.delete(webhookEndpoints);
    await target.db.insert(webhookEndpoints).values(
      secrets.map((s, i) => ({
        id: randomUUID(),
        accountId: account.id,
        url: `https://hooks.example.com/rotate-${i}`,
        events: ['meeting.started' as const],
        form: 'A' as const,
        secret: i === 2 ? s : oldBox.seal(s),
        activeSince: now,
        createdAt: now,
      })),
    );
    if (!database.url) await target.close();

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SECRETS_KEY: newKey.toString('hex'),
      SECRETS_PREVIOUS_KEYS: oldKey.toString('base64url'),
    };
    if (database.url) env.DATABASE_URL = database.url;
    else delete env.DATABASE_URL;
    const run = (extra: Record<string, string> = {}) =>
      spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/rotate-secrets-key.ts'], {
        cwd: ROOT,
        env: { ...env, ...extra },
        encoding: 'utf8',
        timeout: 120_000,
      });

    // Without the old key it cannot open the old values: it says so, changes what it can, exits 1.
    const missing = run({ SECRETS_PREVIOUS_KEYS: '' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`sealed under key ${keyIdOf(oldKey)}: that key is not configured`);
    expect(missing.stderr).toContain('Keep the old keys');

    const rotated = run();
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain('Re-sealed 2 secrets sealed under an older key.');
    expect(rotated.stdout).toContain(`every webhook signing secret is sealed under key ${keyIdOf(newKey)}`);
    expect(rotated.stdout).toContain('remove the old key (SECRETS_PREVIOUS_KEYS)');

    const check = database.url ? database : await openPglite(dataDir);
    try {
      const rows = await check.db.select({ secret: webhookEndpoints.secret }).from(webhookEndpoints);
      const onlyNew = createSecretBox({ current: newKey });
      expect(rows.map((r) => onlyNew.open(r.secret)).sort()).toEqual([...secrets].sort());
      expect(rows.every((r) => onlyNew.isCurrent(r.secret))).toBe(true);
    } finally {
      if (!database.url) await check.close();
    }

    const unset = run({ SECRETS_KEY: '' });
    expect(unset.status).toBe(1);
    expect(unset.stderr).toContain('SECRETS_KEY is not set');
  });
});

// ---------------------------------------------------------------------------------------------
// End to end: registration through /v1, and the worker with legacy rows.

describe(`end to end on ${testDatabaseKind}`, () => {
  let app: TestApp;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // No worker: the test runs the dispatcher itself, so its first run is the one that seals.
    app = await startTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SECRETS_KEY: key().toString('base64url') },
    });
  });
  afterAll(async () => {
    await app?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it.each(['A', 'B'] as const)(
    'Form %s: a registered endpoint’s secret is stored sealed, never as the plaintext it answered',
    async (form) => {
      const { key: apiKey } = await app.createAccount({ form });
      const res = await app.request('/v1/webhooks', {
        method: 'POST',
        key: apiKey,
        json: { url: `${receiverUrl}/register-${form}`, events: ['meeting.started'] },
      });
      expect(res.status).toBe(201);
      const secret = res.json.secret as string;
      expect(secret).toMatch(form === 'A' ? /^whsec_/ : /^[0-9a-f]{64}$/);
      const [row] = await app.db
        .select({ secret: webhookEndpoints.secret })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, res.json.id));
      expect(row!.secret).not.toBe(secret);
      expect(row!.secret).not.toContain(secret);
      expect(isSealed(row!.secret)).toBe(true);
      expect(app.services.webhooks.secrets.isCurrent(row!.secret)).toBe(true);
      expect(app.services.webhooks.secrets.open(row!.secret)).toBe(secret);
    },
  );

  it('the worker seals a legacy plaintext secret before its first dispatch; the delivery is still signed with it', async () => {
    const { key: apiKey } = await app.createAccount({ form: 'A' });
    const path_ = `/legacy-${randomUUID()}`;
    const created = await app.request('/v1/webhooks', {
      method: 'POST',
      key: apiKey,
      json: { url: receiverUrl + path_, events: ['meeting.started'] },
    });
    expect(created.status).toBe(201);
    const legacy = created.json.secret as string;
    // As a row from before encryption holds it.
    await app.db
      .update(webhookEndpoints)
      .set({ secret: legacy })
      .where(eq(webhookEndpoints.id, created.json.id));
    await app.recordNote(apiKey, { transcribe: false });

    await runDueWork(app.db, app.services, { budgetMs: 5000 });

    const [row] = await app.db
      .select({ secret: webhookEndpoints.secret })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.json.id));
    expect(isSealed(row!.secret)).toBe(true);
    expect(app.services.webhooks.secrets.open(row!.secret)).toBe(legacy);

    const delivery = received.find(
      (r) => r.headers['x-service-delivery'] && r.body.includes('meeting.started'),
    );
    expect(delivery).toBeDefined();
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})/.exec(String(delivery!.headers['x-service-signature']))!;
    expect(v1).toBe(createHmac('sha256', legacy).update(`${t}.${delivery!.body}`).digest('hex'));
  });

  it('a sealing failure is logged and dispatch goes on (failure-tolerant, once per database)', async () => {
    const other = await createTestDatabase({ serverUrl: null });
    try {
      const account = await createAccount(other.db, { email: `fail-${randomUUID()}@example.com` });
      const now = new Date();
      await other.db.insert(webhookEndpoints).values({
        id: randomUUID(),
        accountId: account.id,
        url: 'https://hooks.example.com/fail',
        events: ['meeting.started'],
        form: 'A',
        secret: 'whsec_plain',
        activeSince: now,
        createdAt: now,
      });
      let seals = 0;
      const broken: SecretBox = {
        ...app.services.webhooks.secrets,
        seal() {
          seals++;
          throw new Error('sealing is broken');
        },
      };
      const services = { ...app.services, webhooks: { ...app.services.webhooks, secrets: broken } };
      await expect(runDueWork(other.db, services, { budgetMs: 500 })).resolves.toBeDefined();
      await expect(runDueWork(other.db, services, { budgetMs: 500 })).resolves.toBeDefined();
      expect(seals).toBe(1); // tried once for this database, not at every run
      const [row] = await other.db.select({ secret: webhookEndpoints.secret }).from(webhookEndpoints);
      expect(row!.secret).toBe('whsec_plain');
    } finally {
      await other.close();
    }
  });
});
