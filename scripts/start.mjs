// npm start: builds if needed; prepares the database in a child process that then exits
// (scripts/prepare.ts: migrations, secrets, the demo seed); serves Next in this process.
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

/** Runs scripts/prepare.ts to its end; what it hands over (port, auth environment) comes on fd 3. */
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
 * Next's request handler on an HTTP server in this very process, where `next start` would start
 * a second Node process and keep this one resident beside it.
 * @param {{ dir: string, port: number, hostname?: string }} opts
 */
async function serveNext(opts) {
  const { default: next } = await import('next');
  const app = next({ dir: opts.dir, dev: false, port: opts.port, hostname: opts.hostname });
  await app.prepare();
  const handle = app.getRequestHandler();
  const upgrade = app.getUpgradeHandler();
  const server = http.createServer((req, res) => {
    handle(req, res).catch((/** @type {unknown} */ err) => {
      // Next answers its own errors; this is only reached if its handler itself throws.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal Server Error');
      console.error(err);
    });
  });
  server.on('upgrade', (req, socket, head) => {
    upgrade(req, socket, head).catch(() => socket.destroy());
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.hostname, () => resolve(undefined));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    url: `http://localhost:${port}`,
    /** Takes no new connections; requests under way are answered, idle connections closed. */
    stopAccepting: () => {
      server.close();
      server.closeIdleConnections();
    },
  };
}

buildIfNeeded();
const { port, env } = prepare();
// Next reads these when it loads; `next start` would set NODE_ENV the same way.
Object.assign(process.env, { NODE_ENV: 'production', ...env });
const server = await serveNext({ dir: root, port });
console.log(`Ready on ${server.url}`);
// On SIGTERM or SIGINT the server takes no new connections. The process exits when the runtime
// has shut down (server/runtime/shutdown.ts: background work finished or released, the database
// closed, within SHUTDOWN_TIMEOUT_MS), not here.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.stopAccepting());
