import net from 'node:net';
import type { Database } from '../../server/db/client';

/**
 * Counts the SQL statements a client actually sends to the database, from the PostgreSQL frontend
 * protocol itself rather than from what drizzle logs: every Execute ('E') of the extended protocol
 * and every simple Query ('Q'). So BEGIN, COMMIT and anything sent beside drizzle's logger count
 * too. On PostgreSQL the messages are read by a TCP relay between the service's connections and the
 * server; on PGlite, where the same messages go to an in-process engine, by a wrapper around the
 * one method PGlite sends them through.
 */
export interface StatementCounter {
  /** Statements sent while `fn` runs. */
  count(fn: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

/** Counts Execute and Query messages in a stream of typed frontend messages. */
class FrontendMessages {
  private pending = Buffer.alloc(0);
  private startup: boolean;
  statements = 0;

  constructor(opts: { startup: boolean }) {
    this.startup = opts.startup;
  }

  push(chunk: Uint8Array) {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      // The first message of a connection (startup, SSL or cancel request) has no type byte.
      const header = this.startup ? 4 : 5;
      if (this.pending.length < header) return;
      const length = this.pending.readInt32BE(header - 4);
      const total = length + header - 4;
      if (this.pending.length < total) return;
      if (!this.startup) {
        const type = String.fromCharCode(this.pending[0]!);
        if (type === 'E' || type === 'Q') this.statements++;
      }
      this.startup = false;
      this.pending = this.pending.subarray(total);
    }
  }
}

/**
 * A relay to the PostgreSQL server of `serverUrl` on a local port; returns the URL to use in its
 * place. Only connections opened through it are counted.
 */
export async function startCountingRelay(serverUrl: string): Promise<{
  url: string;
  counter: StatementCounter;
}> {
  const target = new URL(serverUrl);
  let total = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const messages = new FrontendMessages({ startup: true });
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => {
      const before = messages.statements;
      messages.push(chunk);
      total += messages.statements - before;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    counter: {
      async count(fn) {
        const before = total;
        await fn();
        return total - before;
      },
      async close() {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    },
  };
}

/** Counts the protocol messages PGlite is handed (every query goes through execProtocolStream). */
export function countPgliteStatements(database: Database): StatementCounter {
  const client = (database.db as unknown as { $client: Record<string, unknown> }).$client;
  const original = client.execProtocolStream as (message: Uint8Array, ...rest: unknown[]) => unknown;
  if (typeof original !== 'function') throw new Error('PGlite no longer sends through execProtocolStream');
  let total = 0;
  client.execProtocolStream = function (this: unknown, message: Uint8Array, ...rest: unknown[]) {
    const messages = new FrontendMessages({ startup: false });
    messages.push(message);
    total += messages.statements;
    return original.call(this, message, ...rest);
  };
  return {
    async count(fn) {
      const before = total;
      await fn();
      return total - before;
    },
    async close() {
      client.execProtocolStream = original;
    },
  };
}
