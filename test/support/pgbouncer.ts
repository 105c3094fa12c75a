import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';

// A real PgBouncer in transaction mode in front of the test's PostgreSQL server, started and
// stopped by the test that needs it (Debian's `pgbouncer` package, installed by
// .ci/install-deps.sh).

export const PGBOUNCER_POOL_SIZE = 10;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function findPgBouncer(): string {
  const dirs = ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(path.delimiter)];
  const found = dirs.map((dir) => path.join(dir, 'pgbouncer')).find((file) => fs.existsSync(file));
  if (!found)
    throw new Error(
      'PgBouncer is not installed: `apt-get install pgbouncer` (.ci/install-deps.sh installs it for the PostgreSQL half of the tests)',
    );
  return found;
}

/** PgBouncer refuses to run as root: as root it runs as the postgres user, as the test cluster does. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (!uid || !gid)
    throw new Error('Running as root, PgBouncer needs the postgres user to run as, and there is none');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface PgBouncer {
  /** The pooled URL of `database`. */
  url: string;
  port: number;
  logFile: string;
  version: string;
  /** A query on the admin console (SHOW POOLS, SHOW CLIENTS…): simple protocol only. */
  show<T extends Record<string, unknown>>(command: string): Promise<T[]>;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode on a free port of 127.0.0.1, pooling `database` of the server
 * `serverUrl` names: a pool of PGBOUNCER_POOL_SIZE server connections, and no prepared statements
 * kept across transactions (versions from 1.21 could keep them; this one must not).
 */
export async function startPgBouncer(opts: {
  serverUrl: string;
  database: string;
  maxClientConnections: number;
  /** Where its log is copied when it stops. */
  keepLogAt?: string;
}): Promise<PgBouncer> {
  const binary = findPgBouncer();
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0]?.trim() ?? '';
  const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  const server = new URL(opts.serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-pgbouncer-'));
  const logFile = path.join(dir, 'pgbouncer.log');
  const target = [
    `host=${server.hostname}`,
    `port=${server.port || 5432}`,
    `dbname=${opts.database}`,
    `user=${user}`,
    ...(server.password ? [`password=${decodeURIComponent(server.password)}`] : []),
  ].join(' ');
  const ini = [
    '[databases]',
    `${opts.database} = ${target}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    `admin_users = ${user}`,
    'pool_mode = transaction',
    `default_pool_size = ${PGBOUNCER_POOL_SIZE}`,
    'min_pool_size = 0',
    'reserve_pool_size = 0',
    `max_client_conn = ${opts.maxClientConnections}`,
    `max_db_connections = ${PGBOUNCER_POOL_SIZE}`,
    `logfile = ${logFile}`,
    ...(major > 1 || minor >= 21 ? ['max_prepared_statements = 0'] : []),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), `${ini}\n`);
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  const runAs = unprivilegedUser();
  if (runAs)
    for (const file of ['', 'pgbouncer.ini', 'userlist.txt'])
      fs.chownSync(path.join(dir, file), runAs.uid, runAs.gid);

  const child: ChildProcess = spawn(binary, [path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'ignore'],
    ...runAs,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const admin = postgres(`postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/pgbouncer`, {
    max: 1,
    fetch_types: false,
    onnotice: () => {},
  });
  const show = async <T extends Record<string, unknown>>(command: string) =>
    [...(await admin.unsafe(command).simple())] as unknown as T[];

  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`PgBouncer exited (${child.exitCode}):\n${log()}`);
    try {
      await show('SHOW VERSION');
      break;
    } catch (err) {
      if (tries >= 100) throw new Error(`PgBouncer did not answer on port ${port}: ${String(err)}\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${opts.database}`,
    port,
    logFile,
    version,
    show,
    async stop() {
      await admin.end({ timeout: 5 });
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (opts.keepLogAt) fs.copyFileSync(logFile, opts.keepLogAt);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
