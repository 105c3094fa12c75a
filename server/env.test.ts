import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from './env';

/** A valid SECRETS_KEY (required in production). */
const KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
/** An SMTP server (required in production). */
const SMTP = 'smtp://mail.example.com:587';

/** parseEnv's EnvError, or a failure when it parses. */
function envError(source: Record<string, string | undefined>): EnvError {
  try {
    parseEnv(source);
  } catch (err) {
    expect(err).toBeInstanceOf(EnvError);
    return err as EnvError;
  }
  throw new Error(`parseEnv accepted ${JSON.stringify(source)}`);
}

describe('parseEnv: the configuration from the environment', () => {
  it('defaults with an empty environment', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      DATA_DIR: './.data',
      PORT: 3000,
      WEBHOOK_RETRY_DELAYS: [30, 300, 1800],
      WEBHOOK_TIMEOUT_MS: 10000,
      WORKER: true,
      WORKER_INTERVAL_MS: 1000,
      WEBHOOK_ALLOW_PRIVATE_URLS: false,
    });
    // No DATABASE_URL means the embedded PGlite database in DATA_DIR.
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.CRON_SECRET).toBeUndefined();
  });

  it('explicit settings are read', () => {
    expect(
      parseEnv({
        DATABASE_URL: 'postgres://u:p@db.example.com:5432/notes',
        DATA_DIR: '/var/lib/notes',
        PORT: '8080',
        WEBHOOK_RETRY_DELAYS: '1,2,3',
        WEBHOOK_TIMEOUT_MS: '2500',
        WORKER: 'off',
        WORKER_INTERVAL_MS: '250',
      }),
    ).toMatchObject({
      DATABASE_URL: 'postgres://u:p@db.example.com:5432/notes',
      DATA_DIR: '/var/lib/notes',
      PORT: 8080,
      WEBHOOK_RETRY_DELAYS: [1, 2, 3],
      WEBHOOK_TIMEOUT_MS: 2500,
      WORKER: false,
      WORKER_INTERVAL_MS: 250,
    });
    expect(parseEnv({ WORKER: 'on' }).WORKER).toBe(true);
    expect(parseEnv({ DATABASE_URL: 'postgresql://localhost/notes' }).DATABASE_URL).toBe(
      'postgresql://localhost/notes',
    );
  });

  it.each([
    ['two numbers', '30,300'],
    ['one number', '30'],
    ['four numbers', '30,300,1800,5'],
    ['letters', 'a,b,c'],
    ['a negative number', '30,300,-5'],
    ['a fraction', '30,300,1.5'],
    ['an empty element', '30,,1800'],
    ['a trailing comma', '30,300,1800,'],
    ['units', '30s,5m,30m'],
    ['semicolons', '30;300;1800'],
  ])('WEBHOOK_RETRY_DELAYS must be exactly three integers: refuses %s (%s)', (_label, value) => {
    const err = envError({ WEBHOOK_RETRY_DELAYS: value });
    expect(err.message).toContain('WEBHOOK_RETRY_DELAYS');
    expect(err.problems.length).toBe(1);
  });

  it.each(['true', '1'])('WEBHOOK_ALLOW_PRIVATE_URLS=%s is refused with VERCEL_ENV=production', (value) => {
    const err = envError({
      WEBHOOK_ALLOW_PRIVATE_URLS: value,
      VERCEL_ENV: 'production',
      CRON_SECRET: 's3cret',
    });
    expect(err.message).toContain('WEBHOOK_ALLOW_PRIVATE_URLS');
    expect(err.message).toContain('VERCEL_ENV');
  });

  it('WEBHOOK_ALLOW_PRIVATE_URLS=true is accepted outside production', () => {
    expect(parseEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }).WEBHOOK_ALLOW_PRIVATE_URLS).toBe(true);
    expect(
      parseEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', VERCEL_ENV: 'preview' }).WEBHOOK_ALLOW_PRIVATE_URLS,
    ).toBe(true);
    expect(
      parseEnv({
        WEBHOOK_ALLOW_PRIVATE_URLS: 'false',
        VERCEL_ENV: 'production',
        CRON_SECRET: 's',
        SECRETS_KEY: KEY,
        SMTP_URL: SMTP,
      }).WEBHOOK_ALLOW_PRIVATE_URLS,
    ).toBe(false);
  });

  it.each([
    ['unset', undefined],
    ['empty', ''],
    ['blank', '   '],
  ])('VERCEL_ENV=production without CRON_SECRET (%s) is refused', (_label, secret) => {
    const err = envError({ VERCEL_ENV: 'production', CRON_SECRET: secret });
    expect(err.message).toContain('CRON_SECRET');
  });

  it('VERCEL_ENV=production with CRON_SECRET starts; CRON_SECRET is optional elsewhere', () => {
    expect(
      parseEnv({ VERCEL_ENV: 'production', CRON_SECRET: 's3cret', SECRETS_KEY: KEY, SMTP_URL: SMTP })
        .CRON_SECRET,
    ).toBe('s3cret');
    expect(parseEnv({ VERCEL_ENV: 'preview' }).CRON_SECRET).toBeUndefined();
  });

  it('every production problem is reported together', () => {
    const err = envError({ VERCEL_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    expect(err.problems).toHaveLength(4);
    expect(err.message).toContain('WEBHOOK_ALLOW_PRIVATE_URLS');
    expect(err.message).toContain('CRON_SECRET');
    expect(err.message).toContain('SECRETS_KEY');
    expect(err.message).toContain('SMTP_URL');
  });

  it.each([
    ['VERCEL_ENV=production', { VERCEL_ENV: 'production', CRON_SECRET: 's' }],
    ['APP_ENV=production', { APP_ENV: 'production' }],
    ['APP_ENV=Production', { APP_ENV: ' Production ' }],
  ])(
    'a production deployment (%s) refuses to start without SMTP, so links never go to a log',
    (label, env) => {
      const err = envError({ ...env, SECRETS_KEY: KEY });
      expect(err.problems).toEqual([
        expect.stringContaining(`SMTP_URL is required with ${label.replace('Production', 'production')}`),
      ]);
      expect(parseEnv({ ...env, SECRETS_KEY: KEY, SMTP_URL: SMTP }).SMTP_URL).toBe(SMTP);
    },
  );

  it('outside production, no SMTP is fine: messages go to the log for local development', () => {
    expect(parseEnv({}).SMTP_URL).toBeUndefined();
    expect(parseEnv({ VERCEL_ENV: 'preview', APP_ENV: 'staging' }).SMTP_URL).toBeUndefined();
  });

  it('APP_ENV=production asks for what VERCEL_ENV=production does, but for the cron secret of Vercel Cron', () => {
    const err = envError({ APP_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    expect(err.problems).toHaveLength(3);
    expect(err.message).toContain(
      'WEBHOOK_ALLOW_PRIVATE_URLS=true is for local development and tests only; it is refused with APP_ENV=production',
    );
    expect(err.message).toContain('SECRETS_KEY is required with APP_ENV=production');
    expect(err.message).not.toContain('CRON_SECRET');
  });

  it.each([
    ['mysql', 'mysql://u:p@localhost/notes'],
    ['sqlite path', 'file:./notes.db'],
    ['no scheme', 'localhost:5432/notes'],
    ['http', 'http://localhost:5432/notes'],
  ])('DATABASE_URL with a bad scheme (%s) is refused', (_label, url) => {
    const err = envError({ DATABASE_URL: url });
    expect(err.message).toContain('DATABASE_URL');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['WEBHOOK_TIMEOUT_MS', '1.5'],
    ['WORKER_INTERVAL_MS', 'soon'],
    ['WORKER', 'maybe'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'yes please'],
  ])('a bad %s (%s) is refused with a message naming the variable', (name, value) => {
    const err = envError({ [name]: value });
    expect(err.message).toContain(name);
  });

  it('a transaction-mode pooler, a direct URL for migrations and migrations as a release step are declared', () => {
    const defaults = parseEnv({ DATABASE_URL: 'postgres://u:p@db.example.com/notes' });
    expect(defaults).toMatchObject({ DATABASE_POOL_MODE: 'session', MIGRATE_ON_START: true });
    expect(defaults.DATABASE_URL_UNPOOLED).toBeUndefined();
    expect(
      parseEnv({
        DATABASE_URL: 'postgres://u:p@ep-x-pooler.example.com/notes',
        DATABASE_URL_UNPOOLED: ' postgresql://u:p@ep-x.example.com/notes ',
        DATABASE_POOL_MODE: 'transaction',
        MIGRATE_ON_START: 'false',
      }),
    ).toMatchObject({
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_URL_UNPOOLED: 'postgresql://u:p@ep-x.example.com/notes',
      MIGRATE_ON_START: false,
    });
    expect(parseEnv({ MIGRATE_ON_START: '0' }).MIGRATE_ON_START).toBe(false);
    expect(parseEnv({ MIGRATE_ON_START: 'true' }).MIGRATE_ON_START).toBe(true);
    expect(parseEnv({ MIGRATE_ON_START: '' }).MIGRATE_ON_START).toBe(true);
  });

  it.each([
    [{ DATABASE_POOL_MODE: 'statement', DATABASE_URL: 'postgres://db/notes' }, 'DATABASE_POOL_MODE'],
    [
      { DATABASE_POOL_MODE: 'transaction' },
      'DATABASE_POOL_MODE=transaction describes the pooler in front of DATABASE_URL',
    ],
    [
      { DATABASE_URL_UNPOOLED: 'postgres://db/notes' },
      'DATABASE_URL_UNPOOLED is the direct URL of the database DATABASE_URL pools',
    ],
    [
      { DATABASE_URL: 'postgres://db/notes', DATABASE_URL_UNPOOLED: 'http://db/notes' },
      'DATABASE_URL_UNPOOLED must start with postgres://',
    ],
    [{ MIGRATE_ON_START: 'no' }, 'MIGRATE_ON_START'],
  ])('refuses database settings that cannot work: %j', (source, message) => {
    expect(envError(source).message).toContain(message);
  });

  it.each([
    [{}, true],
    [{ WORKER: 'off' }, false],
    [{ VERCEL: '1' }, false],
    [{ VERCEL: '1', WORKER: 'on' }, true],
    [{ WORKER: '' }, true],
  ])('%j runs the in-process worker: %s (Vercel functions do not, unless told to)', (source, worker) => {
    expect(parseEnv(source).WORKER).toBe(worker);
  });
});
