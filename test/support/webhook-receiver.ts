import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// ---------------------------------------------------------------------------------------------
// A webhook receiver: a real HTTP server on 127.0.0.1 that records every request and answers
// per path. Free of any test runner: the vitest suite, the end-to-end specs (whose server allows
// private URLs) and the benchmarks all use it.
//
// Every answer is JSON, `{"received":true}` for a 2xx and `{"received":false}` otherwise (no body
// for 204 and 304), so the delivery log has a response body to show.

export interface Received {
  /** The path and query the request asked for, e.g. "/hooks". */
  path: string;
  /** Node's view of the headers: names in lower case. */
  headers: http.IncomingHttpHeaders;
  /** The raw body. */
  body: string;
  /** The X-Service-Event header ('' without one). */
  event: string;
  /** The status the receiver answered (or, for a delayed answer, is about to answer) with. */
  status: number;
  /** Date.now() once the whole request had arrived. */
  at: number;
}

export interface Reply {
  /** The default status (`defaultStatus`) when left out. */
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** Statuses whose answer carries no body. */
const NO_BODY = new Set([204, 304]);

export class Receiver {
  readonly received: Received[] = [];
  /** The status of every answer a path's rule does not set; a test switches it to make the receiver fail. */
  defaultStatus = 200;
  private readonly rules = new Map<string, (n: number) => Reply>();
  private server!: http.Server;
  /** The receiver's origin, e.g. "http://127.0.0.1:41234". */
  base = '';

  /** Starts listening on a free port of 127.0.0.1; the receiver itself, for `await new Receiver().start()`. */
  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        const reply = this.rules.get(path)?.(this.at(path).length + 1) ?? {};
        const status = reply.status ?? this.defaultStatus;
        this.received.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          event: String(req.headers['x-service-event'] ?? ''),
          status,
          at: Date.now(),
        });
        const answer = () => {
          if (res.destroyed) return;
          if (NO_BODY.has(status)) {
            res.writeHead(status, reply.headers).end();
            return;
          }
          res
            .writeHead(status, { 'content-type': 'application/json', ...reply.headers })
            .end(JSON.stringify({ received: status < 300 }));
        };
        if (reply.delayMs) setTimeout(answer, reply.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A fresh path; `rule(n)` answers its n-th request (1-based). */
  path(name: string, rule?: (n: number) => Reply): { path: string; url: string } {
    const path = `/${name}-${randomUUID()}`;
    if (rule) this.rules.set(path, rule);
    return { path, url: this.base + path };
  }

  setRule(path: string, rule: (n: number) => Reply) {
    this.rules.set(path, rule);
  }

  /** The requests to one path, oldest first. */
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
