// Sends one webhook attempt over HTTP (SPEC 6.5; DECISIONS D10, D11, D12, D13).
//
// - POST with the caller's headers plus Content-Type: application/json and User-Agent.
// - The URL is re-checked at send time (D12); the socket connects through a guarded lookup, so
//   it can only reach an address that passed the check at connect time (no DNS rebinding).
// - Redirects are never followed; a 3xx is a failed attempt.
// - One deadline (timeoutMs) covers the send-time check, connect, TLS and the response headers.
//   It also bounds reading the (at most 4 KiB) response body, which never changes the outcome.
// - At most `maxConcurrent` attempts are in flight; the rest wait for a slot, first come first served.

import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { isAppError } from '../errors';
import { WebhookUrlError, checkWebhookUrl, createGuardedLookup, type Resolver } from './url-guard';

export interface AttemptResult {
  statusCode: number | null;
  success: boolean;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
  requestHeaders: Record<string, string>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Attempts in flight at once; default 16. */
  maxConcurrent?: number;
  userAgent?: string;
}

export interface WebhookSender {
  send(req: WebhookRequest): Promise<AttemptResult>;
  close(): Promise<void>;
}

export const MAX_RESPONSE_BODY_BYTES = 4096;
export const DEFAULT_MAX_CONCURRENT = 16;
export const DEFAULT_USER_AGENT = 'MeetingNotes-Webhooks/1.0';

/** The error object and everything it wraps (cause chains, AggregateError members). */
function errorChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 20) {
    const e = queue.shift();
    if (e == null || out.includes(e)) continue;
    out.push(e);
    if (typeof e === 'object') {
      const o = e as { cause?: unknown; errors?: unknown };
      if (o.cause !== undefined) queue.push(o.cause);
      if (Array.isArray(o.errors)) queue.push(...o.errors);
    }
  }
  return out;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** Short error strings for the delivery log (D13). */
export function describeSendError(err: unknown): string {
  const chain = errorChain(err);
  const codes = chain
    .map((e) => (e as { code?: unknown })?.code)
    .filter((c): c is string => typeof c === 'string');
  const messages = chain.map((e) => (e instanceof Error ? e.message : String(e)));

  const blocked = messages.find((m) => m.startsWith('blocked: '));
  if (blocked) return blocked;
  const has = (...wanted: string[]) => codes.some((c) => wanted.includes(c));
  if (has('UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT')) return 'timeout';
  if (has('ECONNREFUSED')) return 'connection refused';
  if (has('ENOTFOUND', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'EAI_FAIL'))
    return 'dns: name does not resolve';
  if (has('EAI_AGAIN')) return 'dns: temporary failure';
  const tls = chain.find((e) => {
    const code = (e as { code?: unknown })?.code;
    return (
      (typeof code === 'string' && TLS_CODE.test(code)) ||
      (e instanceof Error && /certificate|\bssl\b|\btls\b/i.test(e.message))
    );
  });
  if (tls) return `tls: ${tls instanceof Error ? tls.message : String(tls)}`;
  if (has('ECONNRESET')) return 'connection reset';
  if (has('EHOSTUNREACH')) return 'host unreachable';
  if (has('ENETUNREACH')) return 'network unreachable';
  if (has('UND_ERR_SOCKET')) return 'connection closed by the endpoint';
  const first = messages.find((m) => m !== '') ?? 'request failed';
  return first;
}

function describeUrlError(err: unknown): string {
  if (err instanceof WebhookUrlError) {
    if (err.reason === 'unresolvable') return 'dns: name does not resolve';
    if (err.reason === 'non_public') return `blocked: private address ${err.address ?? ''}`.trimEnd();
    return err.message;
  }
  if (isAppError(err)) return err.message;
  return describeSendError(err);
}

/** The headers of an attempt: the caller's, with our Content-Type and User-Agent replacing theirs. */
function buildHeaders(given: Record<string, string>, userAgent: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    if (lower === 'content-type' || lower === 'user-agent') continue;
    out[name] = value;
  }
  out['Content-Type'] = 'application/json';
  out['User-Agent'] = userAgent;
  return out;
}

/** Reads at most MAX_RESPONSE_BODY_BYTES and then destroys the stream; never throws. */
async function readLimited(
  body: AsyncIterable<Uint8Array> & { destroy(err?: Error): unknown },
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = Buffer.from(chunk);
      const take = Math.min(buf.length, MAX_RESPONSE_BODY_BYTES - size);
      chunks.push(buf.subarray(0, take));
      size += take;
      if (size >= MAX_RESPONSE_BODY_BYTES) break; // leaving the loop destroys the stream
    }
  } catch {
    // aborted by the deadline or reset by the peer: keep what arrived
  } finally {
    try {
      body.destroy();
    } catch {
      // already destroyed
    }
  }
  // stream: true holds back a multi-byte character cut at the 4 KiB boundary.
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks), { stream: true });
}

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  const timeoutMs = opts.timeoutMs;
  const maxConcurrent = opts.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new Error(`maxConcurrent must be a positive integer, got ${String(opts.maxConcurrent)}`);
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new Error(`timeoutMs must be a positive number, got ${String(opts.timeoutMs)}`);
  }
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const guard = { allowPrivate: opts.allowPrivate, resolve: opts.resolve };
  const agent = new Agent({
    connect: { lookup: createGuardedLookup(guard), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const limit = pLimit(maxConcurrent);
  let closed = false;

  async function attempt(
    req: WebhookRequest,
    requestHeaders: Record<string, string>,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const result = (r: Omit<AttemptResult, 'durationMs' | 'requestHeaders'>): AttemptResult => ({
      ...r,
      durationMs: Math.round(performance.now() - started),
      requestHeaders,
    });
    const failed = (error: string) => result({ statusCode: null, success: false, error, responseBody: null });

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
    const deadline = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('timeout')), { once: true });
    });
    deadline.catch(() => {});
    try {
      // D12: checked again at every attempt, on the addresses DNS returns now.
      let url: URL;
      try {
        ({ url } = await Promise.race([checkWebhookUrl(req.url, guard), deadline]));
      } catch (err) {
        return failed(controller.signal.aborted ? 'timeout' : describeUrlError(err));
      }

      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(url, {
          dispatcher: agent,
          method: 'POST',
          headers: requestHeaders,
          body: req.body,
          signal: controller.signal,
        });
      } catch (err) {
        return failed(controller.signal.aborted ? 'timeout' : describeSendError(err));
      }

      // Headers are in: the outcome is settled. The deadline still bounds the body read.
      const statusCode = res.statusCode;
      const responseBody = await readLimited(res.body);
      const success = statusCode >= 200 && statusCode < 300;
      const error = statusCode >= 300 && statusCode < 400 ? `redirect (${statusCode}) not followed` : null;
      return result({ statusCode, success, error, responseBody });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async send(req) {
      const requestHeaders = buildHeaders(req.headers ?? {}, userAgent);
      if (closed) {
        return {
          statusCode: null,
          success: false,
          error: 'sender closed',
          durationMs: 0,
          responseBody: null,
          requestHeaders,
        };
      }
      return limit(() => attempt(req, requestHeaders));
    },
    async close() {
      closed = true;
      await agent.close();
    },
  };
}
