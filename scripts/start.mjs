// npm start: what a deployment runs, from this checkout. Builds the standalone output if needed
// (next.config.mjs: output 'standalone'), prepares the database in a child process that then
// exits (scripts/prepare.ts: migrations, secrets, the demo seed), and runs the server a
// deployment runs, .next/standalone/server.js, in this very process.
//
// This file is plain JavaScript on purpose: the process that stays resident loads Next and
// nothing else — no TypeScript loader, no second copy of the server's modules, none of the
// memory that preparing the database took (issue 14 item 5).
//
// `npm start` runs it through scripts/start.sh, which sets how V8 and malloc use memory (the
// reasons and figures are there and in the README, Performance).
import { spawnSync } from 'node:child_process';
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

function buildIfNeeded() {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  const built =
    fs.existsSync(buildId) && fs.existsSync(path.join(standalone, 'server.js'))
      ? fs.statSync(buildId).mtimeMs
      : 0;
  const stale = !built || SOURCES.some((s) => newestMtime(s) > built);
  if (stale) {
    console.log(
      built ? 'Sources changed since the last build: building…' : 'No build yet: building (about a minute)…',
    );
    // Without Next's own type check: starting the service needs it built, not checked
    // (`npm run typecheck` does that, and CI runs it; next.config.mjs has the figures).
    const result = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/next/dist/bin/next'), 'build'],
      {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, BUILD_SKIP_TYPECHECK: '1' },
      },
    );
    if (result.status !== 0) process.exit(result.status ?? 1);
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
}

/** Runs scripts/prepare.ts to its end; what it hands over (port, environment) comes on fd 3. */
function prepare() {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/prepare.ts')], {
    cwd: root,
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const handover = result.output[3]?.toString() ?? '';
  try {
    return /** @type {{ port: number, env: Record<string, string> }} */ (JSON.parse(handover));
  } catch {
    console.error('npm start: preparing the database handed nothing over');
    process.exit(1);
  }
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

buildIfNeeded();
const { port, env } = prepare();
Object.assign(process.env, env, {
  PORT: String(port),
  // server.js listens on $HOSTNAME, which container runtimes set to the container's own name;
  // `npm start` listens on every interface.
  HOSTNAME: '0.0.0.0',
});
// Next's server.js prints "✓ Ready in 0ms" as soon as it listens, before it has loaded the app
// or run instrumentation.ts, so a request then still waits for the migrations. That one line is
// left out: "Ready on …" below says it once the server answers.
const write = process.stdout.write;
process.stdout.write = /** @type {typeof write} */ (
  (chunk, ...rest) => (/Ready in /.test(String(chunk)) ? true : write.call(process.stdout, chunk, ...rest))
);
// The server a deployment runs: it changes to its folder, sets NODE_ENV=production, and stops on
// SIGINT and SIGTERM.
await import(pathToFileURL(path.join(standalone, 'server.js')).href);
await answering(port);
process.stdout.write = write;
console.log(`Ready on http://localhost:${port}`);
