import http from 'node:http';
import type { AddressInfo } from 'node:net';
import next from 'next';

export interface ServeNextOptions {
  dir: string;
  port: number;
  hostname?: string;
}

/**
 * The production server of `npm start`: Next's request handler on an HTTP server in this very
 * process, where `next start` would start a second Node process (and keep this one resident
 * beside it, holding the memory of preparing the database).
 */
export async function serveNext(opts: ServeNextOptions): Promise<{ url: string; close(): Promise<void> }> {
  const app = next({ dir: opts.dir, dev: false, port: opts.port, hostname: opts.hostname });
  await app.prepare();
  const handle = app.getRequestHandler();
  const upgrade = app.getUpgradeHandler();
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // Next answers its own errors; this is only reached if its handler itself throws.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal Server Error');
      console.error(err);
    });
  });
  server.on('upgrade', (req, socket, head) => {
    upgrade(req, socket, head).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.hostname, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
