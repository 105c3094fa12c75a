import http from 'node:http';

export interface ReceivedRequest {
  /** The request's path, e.g. "/hooks". */
  path: string;
  /** Node's view of the headers: names in lower case. */
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The X-Service-Event header. */
  event: string;
  /** The status the receiver answered with. */
  status: number;
}

/**
 * A webhook receiver on 127.0.0.1 (the e2e server allows private URLs) whose answer the test
 * can switch, and which keeps every request it got: path, headers and raw body.
 */
export async function startReceiver() {
  const received: ReceivedRequest[] = [];
  let status = 200;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      received.push({
        path: new URL(req.url ?? '/', 'http://receiver').pathname,
        headers: req.headers,
        body,
        event: String(req.headers['x-service-event']),
        status,
      });
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: status < 300 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    url: `${origin}/hooks`,
    received,
    answer: (s: number) => {
      status = s;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
