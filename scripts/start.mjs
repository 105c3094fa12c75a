// npm start: what a deployment runs, from this checkout. Builds the standalone output if needed
// (next.config.mjs: output 'standalone'), prepares the database in a child process that then
// exits (scripts/prepare.ts: migrations, secrets, the demo seed), and runs the server a
// deployment runs, .next/standalone/server.js, in this very process.
//
// This file is plain JavaScript on purpose: the process that stays resident loads Next and
// nothing else — no TypeScript loader, no second copy of the server's modules, none of the
// memory that preparing the database took.
//
// `npm start` runs it through scripts/start.sh, which sets how V8 and malloc use memory (the
// reasons are there; the figures in docs/performance.md#the-start-script).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const standalone = path.join(root, '.next', 'standalone');
const SOURCES = [
  'app',
  'server',
  'components',
  'drizzle',
  'package.json',
  'package-lock.json',
  'next.config.mjs',
  'instrumentation.ts',
  'proxy.ts',
];

// Next's telemetry (sent by `next build`) stays off unless the operator turns it on with
// NEXT_TELEMETRY_DISABLED=0. Next counts any non-empty value as "disabled", 0 included, so a 0
// or false is passed on as unset, which is Next's own default (`npx next telemetry` still applies).
const telemetry = process.env.NEXT_TELEMETRY_DISABLED?.trim() ?? '';
if (/^(0|false)$/i.test(telemetry)) delete process.env.NEXT_TELEMETRY_DISABLED;
else if (telemetry === '') process.env.NEXT_TELEMETRY_DISABLED = '1';

/** @param {string} p */
function newestMtime(p) {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(full)
    .reduce((max, name) => Math.max(max, newestMtime(path.join(p, name))), stat.mtimeMs);
}

/** Whether the standalone build is missing or older than a source. */
function buildIsStale() {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!fs.existsSync(buildId) || !fs.existsSync(path.join(standalone, 'server.js'))) return true;
  const built = fs.statSync(buildId).mtimeMs;
  return SOURCES.some((s) => newestMtime(s) > built);
}

/** The build and the preparing step while they run: a signal that stops `npm start` stops them too. */
const running = new Set();
/** @param {NodeJS.Signals} signal */
const stopWithChildren = (signal) => {
  for (const child of running) child.kill(signal);
  process.exit(signal === 'SIGINT' ? 130 : 143);
};
process.on('SIGINT', stopWithChildren);
process.on('SIGTERM', stopWithChildren);

/**
 * Runs a Node script in a child process to its end. With `handover`, its stdout may be kept and
 * what it writes on fd 3 is read; the run ends when those have closed.
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, handover?: boolean, keepStdout?: boolean }} opts
 * @returns {{ child: import('node:child_process').ChildProcess, done: Promise<{ status: number, stdout: string, fd3: string }> }}
 */
function run(args, { env = process.env, handover = false, keepStdout = false } = {}) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['inherit', keepStdout ? 'pipe' : 'inherit', 'inherit', ...(handover ? ['pipe'] : [])],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  /** @type {Buffer[]} */ const stdout = [];
  /** @type {Buffer[]} */ const fd3 = [];
  child.stdout?.on('data', (d) => stdout.push(d));
  child.stdio[3]?.on('data', (d) => fd3.push(d));
  const done = new Promise((resolve) =>
    child.once(handover ? 'close' : 'exit', (code) =>
      resolve({
        status: code ?? 1,
        stdout: Buffer.concat(stdout).toString(),
        fd3: Buffer.concat(fd3).toString(),
      }),
    ),
  );
  return { child, done };
}

/**
 * Resolves once the server answers an HTTP request. Next's server.js listens at once and says
 * "Ready" then, but holds requests until it has loaded the app and run instrumentation.ts (the
 * database opened and migrated): only an answer says that it serves.
 * @param {number} port
 */
async function answering(port) {
  for (;;) {
    const answered = await new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/icon.svg', timeout: 60_000 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
    });
    if (answered) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

// scripts/prepare.ts prepares the database (migrations, secrets, and on a first run the demo
// seed with its model) and exits; what the server needs (port, environment) comes on fd 3. It
// needs no build, and the build no database: on a first start the two run side by side, the
// seed's printout kept until the build's is done (the seed's model keeps a core busy for about
// 20 s).
const stale = buildIsStale();
const preparing = run(['--import', 'tsx', path.join(root, 'scripts/prepare.ts')], {
  handover: true,
  keepStdout: stale,
});
if (stale) {
  console.log('Building (about a minute the first time)…');
  // Without Next's own type check, source maps and cache for later builds: starting the service
  // needs it built, not checked or debugged (next.config.mjs says what and how much).
  const build = run([path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
    env: { ...process.env, NPM_START_BUILD: '1' },
  });
  // A database that cannot be prepared (in use, misconfigured) stops the start without waiting
  // for the build.
  preparing.done.then(({ status }) => status !== 0 && build.child.kill());
  const built = await build.done;
  if (built.status !== 0) {
    const { stdout } = await preparing.done;
    process.stdout.write(stdout);
    process.exit(built.status);
  }
}
// server.js serves the browser's files from beside it, and Next leaves copying them to whoever
// deploys the folder (a CDN may serve them instead): here, that is us.
const staticDir = path.join(standalone, '.next', 'static');
if (stale || !fs.existsSync(staticDir)) {
  fs.rmSync(staticDir, { recursive: true, force: true });
  fs.cpSync(path.join(root, '.next', 'static'), staticDir, { recursive: true });
  if (fs.existsSync(path.join(root, 'public')))
    fs.cpSync(path.join(root, 'public'), path.join(standalone, 'public'), { recursive: true });
}
// Next's server reads these from its own folder when it starts, and the build copied only some
// of them, as they were then: the project's, as they are now, as `next start` would read them.
for (const name of ['.env', '.env.local', '.env.production', '.env.production.local']) {
  const copy = path.join(standalone, name);
  if (fs.existsSync(path.join(root, name))) fs.copyFileSync(path.join(root, name), copy);
  else fs.rmSync(copy, { force: true });
}
const prepared = await preparing.done;
process.stdout.write(prepared.stdout);
if (prepared.status !== 0) process.exit(prepared.status);
/** @type {{ port: number, env: Record<string, string> }} */
let handover;
try {
  handover = JSON.parse(prepared.fd3);
} catch {
  console.error('npm start: preparing the database handed nothing over');
  process.exit(1);
}

const { port, env } = handover;
Object.assign(process.env, env, {
  PORT: String(port),
  // server.js listens on $HOSTNAME, which container runtimes set to the container's own name;
  // `npm start` listens on every IPv4 address, as Next's server does by default.
  HOSTNAME: '0.0.0.0',
});
// Next's server.js prints "✓ Ready in 0ms" as soon as it listens, before it has loaded the app
// or run instrumentation.ts, so a request then still waits for the migrations. That one line is
// left out: "Ready on …" below says it once the server answers.
const write = process.stdout.write;
process.stdout.write = /** @type {typeof write} */ (
  (chunk, ...rest) => (/Ready in /.test(String(chunk)) ? true : write.call(process.stdout, chunk, ...rest))
);
// The server a deployment runs: it changes to its folder and sets NODE_ENV=production. On SIGINT
// and SIGTERM the runtime's own shutdown (server/runtime/shutdown.ts) finishes or releases the
// background work and then ends the process: NEXT_MANUAL_SIG_HANDLE keeps Next's server from
// exiting at once on the signal.
process.env.NEXT_MANUAL_SIG_HANDLE = 'true';
process.off('SIGINT', stopWithChildren);
process.off('SIGTERM', stopWithChildren);
await import(pathToFileURL(path.join(standalone, 'server.js')).href);
await answering(port);
process.stdout.write = write;
console.log(`Ready on http://localhost:${port}`);
