// The admin command line's work (docs/rules.md#admin-command-line); scripts/admin.ts runs it as
// `npm run --silent admin -- <command> [flags]`. One JSON object on stdout; logs and progress on
// stderr; a non-zero exit code on failure.
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  type Actor,
  operatorCreateAccount,
  operatorCreateKey,
  operatorRevokeKey,
  operatorUpdateAccount,
} from '../server/accounts/operator-console';
import { type Database, DatabaseInUseError, type Db, PendingMigrationsError } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { DEFAULT_FORM, FORM_NAMES, type FormName, PLANS, type Plan, parseFormName } from '../server/domain';
import { EnvError, getEnv } from '../server/env';
import { createServices } from '../server/services';
import { AppError } from '../server/errors';
import { seedDemo } from '../server/seed/seed-demo';

const USAGE = `Usage: npm run --silent admin -- <command> [flags]

  account:create --email E [--name N] [--password P] [--plan free|pro|enterprise]
                 [--daily-limit N] [--early-access] [--form A|B]
  account:update --account ID [--plan P] [--daily-limit N] [--early-access true|false]
  key:create     --account ID [--form A|B] [--name N]
  key:revoke     --key ID
  seed           a demo account with early access, a login, an API key and a dozen notes`;

class UsageError extends Error {}

function plan(value: string | undefined): Plan | undefined {
  if (value === undefined) return undefined;
  if (!(PLANS as readonly string[]).includes(value))
    throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return value as Plan;
}

function form(value: string | undefined): FormName | undefined {
  if (value === undefined) return undefined;
  const name = parseFormName(value);
  if (!name) throw new UsageError(`--form must be ${FORM_NAMES.join(' or ')}`);
  return name;
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive whole number`);
  return n;
}

function required(name: string, value: string | undefined): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

const uuid = (name: string, value: string | undefined) => {
  const v = required(name, value);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v))
    throw new UsageError(`--${name} must be a UUID`);
  return v;
};

/** Where the command line writes, and the database it opens (the configured one unless told). */
export interface AdminIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  openDatabase?: () => Promise<Database>;
}

async function main(argv: string[], io: AdminIo): Promise<unknown> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') throw new UsageError('');
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      'daily-limit': { type: 'string' },
      'early-access': { type: 'string' },
      form: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
    },
    // --early-access takes no value on account:create but true|false on account:update.
    allowNegative: false,
  } as const);

  // Every flag is checked before the database is touched, so a rejected command changes nothing.
  const run = commandFor(command, values, io);
  const database = await (io.openDatabase ?? openConfiguredDatabase)();
  try {
    return await run(database.db);
  } finally {
    await database.close();
  }
}

type Flags = Record<string, string | undefined>;

/** The CLI's changes are in the accounts' audit log, as the operator console's are. */
function cliActor(): Actor {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    /* no user entry (a container) */
  }
  return { label: `admin CLI (${user}@${os.hostname()})`, accountId: null };
}

function commandFor(command: string, values: Flags, io: AdminIo): (db: Db) => Promise<unknown> {
  switch (command) {
    case 'account:create': {
      const input = {
        email: required('email', values.email),
        name: values.name ?? null,
        password: values.password ?? null,
        plan: plan(values.plan) ?? 'free',
        dailyLimit: positiveInt('--daily-limit', values['daily-limit']) ?? null,
        earlyAccess: values['early-access'] !== undefined && values['early-access'] !== 'false',
      };
      const keyForm = form(values.form) ?? DEFAULT_FORM;
      return async (db) => {
        const { account, key, plaintext } = await operatorCreateAccount(db, cliActor(), input, {
          form: keyForm,
        });
        return {
          account_id: account.id,
          email: account.email,
          key_id: key.id,
          api_key: plaintext,
          form: key.form,
        };
      };
    }
    case 'account:update': {
      const early = values['early-access'];
      if (early !== undefined && early !== 'true' && early !== 'false')
        throw new UsageError('--early-access must be true or false');
      const accountId = uuid('account', values.account);
      const changes = {
        plan: plan(values.plan),
        dailyLimit: positiveInt('--daily-limit', values['daily-limit']),
        earlyAccess: early === undefined ? undefined : early === 'true',
      };
      return async (db) => {
        const { account } = await operatorUpdateAccount(db, cliActor(), accountId, changes);
        return {
          account_id: account.id,
          email: account.email,
          plan: account.plan,
          daily_limit: account.dailyLimit,
          early_access: account.earlyAccess,
        };
      };
    }
    case 'key:create': {
      const input = {
        accountId: uuid('account', values.account),
        form: form(values.form) ?? DEFAULT_FORM,
        name: values.name ?? '',
      };
      return async (db) => {
        const { key, plaintext } = await operatorCreateKey(db, cliActor(), input);
        return { key_id: key.id, api_key: plaintext, form: key.form };
      };
    }
    case 'key:revoke': {
      const keyId = uuid('key', values.key);
      return async (db) => {
        const key = await operatorRevokeKey(db, cliActor(), keyId);
        return { key_id: key.id, revoked: true };
      };
    }
    case 'seed':
      return (db) =>
        seedDemo(db, createServices(getEnv()), {
          onProgress: (done, total) =>
            io.stderr(`\rseeding demo notes ${done}/${total}${done === total ? '\n' : ''}`),
        });
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

// An account:create with --early-access and no value: parseArgs wants a value, so give it one.
function normalise(argv: string[]): string[] {
  return argv.flatMap((arg, i) => {
    const next = argv[i + 1];
    return arg === '--early-access' && (next === undefined || next.startsWith('--')) ? [arg, 'true'] : [arg];
  });
}

/** Runs one command line (the arguments after `admin`); resolves to the process's exit code. */
export function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  return main(normalise(argv), io).then(
    (result) => {
      io.stdout(`${JSON.stringify(result)}\n`);
      return 0;
    },
    (err: unknown) => {
      io.stderr(failureMessage(err));
      return 1;
    },
  );
}

/** What stderr says: the usage after a wrong command line, no stack trace for an expected failure. */
function failureMessage(err: unknown): string {
  if (err instanceof UsageError) return `${err.message ? `${err.message}\n\n` : ''}${USAGE}\n`;
  if (
    err instanceof DatabaseInUseError ||
    err instanceof PendingMigrationsError ||
    err instanceof EnvError ||
    err instanceof AppError
  )
    return `${err.message}\n`;
  if (
    err instanceof Error &&
    'code' in err &&
    String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')
  )
    return `${err.message}\n\n${USAGE}\n`;
  return `admin failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
}
