import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Serves fetch-style handlers over a real HTTP socket without Next: the tests, benchmarks
 * and scripts use it to reach the very handlers that Next's route files export.
 */
export async function serveNode(
  route: (pathname: string) => FetchHandler | undefined,
  opts: { port?: number; host?: string } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      const handler = route(url.pathname);
      if (!handler) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        for (const value of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, value);
      }
      // The body streams in as the handler reads it, as under `next start` (which hands the
      // request itself to undici the same way), so a handler's body cap works on the real path.
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(url, {
        method: req.method,
        headers,
        ...(hasBody && { body: req as unknown as ReadableStream, duplex: 'half' }),
      } as RequestInit);
      const response = await handler(request);
      const out: Record<string, string | string[]> = {};
      response.headers.forEach((value, key) => {
        out[key] = value;
      });
      // Each cookie is a header line of its own (next-auth sets several at once).
      const cookies = response.headers.getSetCookie();
      if (cookies.length) out['set-cookie'] = cookies;
      res.writeHead(response.status, out);
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    }
  });
  // An idle connection is closed by the client, never by this server. With Node's 5 s idle timeout
  // a test's request failed with ECONNRESET (CI, once): its first after 8 s of work without one,
  // on a connection the server closed as the client reused it. With no server-side timeout that
  // race cannot happen; fetch drops an idle connection after 4 s, and close() ends what is left.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
