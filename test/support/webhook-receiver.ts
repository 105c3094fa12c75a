import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// ---------------------------------------------------------------------------------------------
// A receiver: a real HTTP server on 127.0.0.1 that records every request and answers per path.

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Date.now() once the whole request had arrived. */
  at: number;
}
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export class Receiver {
  readonly received: Received[] = [];
  private readonly rules = new Map<string, (n: number) => Reply>();
  private server!: http.Server;
  base = '';

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = {
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.received.push(r);
        const reply = this.rules.get(r.path)?.(this.at(r.path).length) ?? {};
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
          res.end('ok');
        };
        if (reply.delayMs) setTimeout(answer, reply.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
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

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
