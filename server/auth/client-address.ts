import http from 'node:http';
import ipaddr from 'ipaddr.js';

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  return (Array.isArray(value) ? value.join(',') : value) ?? '';
}

/**
 * Who is asking, for the sign-in and sign-up throttles: an address, or null when nothing says.
 *
 * X-Forwarded-For lists the hops of a request, each appending the address it was reached from;
 * the server itself appends its socket's peer (installForwardedForPeer). With `trustProxyHops`
 * proxies of ours in front, the entry that many places before the last is the client: the
 * entries further left were written by the client and are ignored.
 *
 * Limits: a wrong TRUST_PROXY defeats it (too high, and the client picks its own address; too
 * low, and every client shares the proxy's). IPv6 clients count by their /64, the block one
 * subscriber usually holds, so rotating addresses inside it does not help.
 */
export function clientAddress(headers: HeaderSource, trustProxyHops: number): string | null {
  const hops = header(headers, 'x-forwarded-for')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const entry = hops[Math.max(0, hops.length - 1 - trustProxyHops)];
  return entry === undefined ? null : normalizeAddress(entry);
}

function normalizeAddress(entry: string): string {
  // "[::1]:8080" and "10.0.0.1:8080" are written by some proxies.
  const bare = entry.startsWith('[')
    ? entry.slice(1, entry.indexOf(']'))
    : /^\d+\.\d+\.\d+\.\d+:\d+$/.test(entry)
      ? entry.slice(0, entry.indexOf(':'))
      : entry;
  if (!ipaddr.isValid(bare)) return 'unparseable';
  const address = ipaddr.process(bare);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

const INSTALLED = Symbol.for('meeting-notes.forwarded-for-peer');

/**
 * Next's server keeps a client's own X-Forwarded-For (it fills the header only when absent), so
 * a route handler cannot tell a forged header from the socket's peer. This makes the Node HTTP
 * server write the peer itself before Next sees the request: with no trusted proxy it replaces
 * the client's X-Forwarded-For outright; behind proxies it appends the peer, as a proxy would.
 * (X-Forwarded-Host and -Proto are left as Next treats them: they only shape the answer to the
 * request that carries them, the URLs next-auth writes back and whether HSTS is sent.)
 *
 * Limits: it patches http.Server for the whole process (this process serves only Next), and a
 * request that arrived while the server was still starting, before this ran, keeps its headers.
 * Returns the undo, for tests.
 */
export function installForwardedForPeer(trustProxyHops: number): () => void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return () => {};
  const ownEmit = Object.getOwnPropertyDescriptor(proto, 'emit');
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === 'request') recordPeer(args[0] as http.IncomingMessage, trustProxyHops);
    return emit.apply(this, [event, ...args]);
  } as typeof proto.emit;
  proto[INSTALLED] = true;
  return () => {
    if (ownEmit) Object.defineProperty(proto, 'emit', ownEmit);
    else delete (proto as { emit?: unknown }).emit;
    delete proto[INSTALLED];
  };
}

function recordPeer(req: http.IncomingMessage, trustProxyHops: number) {
  const peer = req.socket?.remoteAddress ?? '';
  if (trustProxyHops === 0) {
    req.headers['x-forwarded-for'] = peer;
    return;
  }
  const forwarded = header(req.headers, 'x-forwarded-for');
  req.headers['x-forwarded-for'] = forwarded ? `${forwarded}, ${peer}` : peer;
}
