// Sends one webhook attempt over HTTP (docs/rules.md#delivery-retries-and-deactivation).
//
// - POST with the caller's headers plus Content-Type: application/json and User-Agent.
// - The URL is re-checked at send time; the socket connects through a guarded lookup, so
//   it can only reach an address that passed the check at connect time (no DNS rebinding).
// - Redirects are never followed; a 3xx is a failed attempt.
// - One deadline (timeoutMs) covers the send-time check, connect, TLS and the response headers.
//   It also bounds reading the (at most 4 KiB) response body, which never changes the outcome.
// - At most `maxConcurrent` attempts are in flight; the rest wait for a slot, first come first served.

import { isAscii } from 'node:buffer';
import { Agent, type Dispatcher } from 'undici';
import { isAppError } from '../errors';
import {
  WebhookUrlError,
  checkWebhookUrl,
  createGuardedLookup,
  isIpLiteral,
  normalizeHost,
  type Resolver,
} from './url-guard';

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

export interface SendOptions {
  /** Aborted while the request still waits for a slot: it is not sent (AttemptNotStartedError). */
  signal?: AbortSignal;
  /** Runs around the attempt once it has its slot (a trace span covers the attempt, not the wait). */
  around?: (attempt: () => Promise<AttemptResult>) => Promise<AttemptResult>;
}

export interface WebhookSender {
  send(req: WebhookRequest, opts?: SendOptions): Promise<AttemptResult>;
  close(): Promise<void>;
}

/** The request was still waiting for a slot when its signal aborted: nothing was sent. */
export class AttemptNotStartedError extends Error {
  constructor() {
    super('attempt not started: the dispatcher is stopping');
    this.name = 'AttemptNotStartedError';
  }
}

export const MAX_RESPONSE_BODY_BYTES = 4096;
export const DEFAULT_MAX_CONCURRENT = 16;
export const DEFAULT_USER_AGENT = 'MeetingNotes-Webhooks/1.0';
const NUMERIC_CHECKED_MAX = 1024;

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

/** Short error strings for the delivery log. */
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

/**
 * The response body kept: its first bytes, an incomplete character at the cut dropped (never
 * mangled). A NUL character becomes U+FFFD: PostgreSQL text cannot hold one, and one attempt's
 * body must not keep a batch of attempts from being recorded.
 */
function decodeKept(chunks: Buffer[], size: number): string {
  if (size === 0) return '';
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
  // stream: true holds back a multi-byte character cut at the 4 KiB boundary.
  const text = isAscii(bytes)
    ? bytes.toString('latin1')
    : new TextDecoder('utf-8').decode(bytes, { stream: true });
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}

/**
 * At most `max` tasks at once; the rest start in the order they came, as slots free up. A waiting
 * task whose signal aborts leaves the queue (`abandoned` is called instead).
 */
function createSlots(max: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    run(task: () => void, signal?: AbortSignal, abandoned?: () => void): void {
      if (active < max) {
        active++;
        task();
        return;
      }
      if (!signal) {
        waiting.push(task);
        return;
      }
      if (signal.aborted) {
        abandoned?.();
        return;
      }
      const onAbort = () => {
        const at = waiting.indexOf(start);
        if (at === -1) return;
        waiting.splice(at, 1);
        abandoned?.();
      };
      const start = () => {
        signal.removeEventListener('abort', onAbort);
        task();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push(start);
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
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
  const slots = createSlots(maxConcurrent);
  let closed = false;
  let closing: Promise<void> | undefined;
  /**
   * URLs with a numeric host that passed the send-time check: for them the check is a function
   * of the URL alone (no DNS), so it is not repeated. A name is resolved and checked every time.
   */
  const numericChecked = new Map<string, URL>();
  const checkUrl = async (raw: string): Promise<URL> => {
    const known = numericChecked.get(raw);
    if (known) return known;
    const { url } = await checkWebhookUrl(raw, guard);
    if (isIpLiteral(normalizeHost(url.hostname))) {
      if (numericChecked.size >= NUMERIC_CHECKED_MAX) numericChecked.clear();
      numericChecked.set(raw, url);
    }
    return url;
  };

  /**
   * One attempt, through undici's dispatch interface: no response stream, no AbortSignal (with
   * them, `request` took about twice the CPU time per attempt to a local receiver). `done` is
   * called once with the result, at the deadline at the latest. The slot is released once undici
   * is done with the request too, which may be after the deadline: a request still waiting to
   * connect ends at the connect time-out.
   */
  function attempt(
    req: WebhookRequest,
    requestHeaders: Record<string, string>,
    done: (result: AttemptResult) => void,
  ): void {
    const started = performance.now();
    let settled = false;
    let timedOut = false;
    let dispatched = false;
    let released = false;
    let controller: Dispatcher.DispatchController | null = null;
    let statusCode = 0;
    const chunks: Buffer[] = [];
    let size = 0;

    const release = () => {
      if (released) return;
      released = true;
      slots.release();
    };
    const settle = (r: Omit<AttemptResult, 'durationMs' | 'requestHeaders'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done({ ...r, durationMs: Math.round(performance.now() - started), requestHeaders });
    };
    const failed = (error: string) => settle({ statusCode: null, success: false, error, responseBody: null });
    // Headers are in: the outcome is settled; the body is only kept for the log.
    const answered = () =>
      settle({
        statusCode,
        success: statusCode >= 200 && statusCode < 300,
        error: statusCode >= 300 && statusCode < 400 ? `redirect (${statusCode}) not followed` : null,
        responseBody: decodeKept(chunks, size),
      });

    // One deadline for the send-time check, connect, TLS and the response headers; it also
    // bounds reading the body.
    const timer = setTimeout(() => {
      timedOut = true;
      if (statusCode !== 0) answered();
      else failed('timeout');
      if (controller) controller.abort(new Error('timeout'));
      else if (!dispatched) release(); // still in the send-time check: nothing was sent
    }, timeoutMs);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (timedOut) c.abort(new Error('timeout'));
      },
      onResponseStart(_c, code) {
        if (code < 200) return; // 1xx informational: the final response follows
        statusCode = code;
      },
      onResponseData(c, chunk) {
        if (settled) return;
        const take = Math.min(chunk.length, MAX_RESPONSE_BODY_BYTES - size);
        chunks.push(take === chunk.length ? chunk : chunk.subarray(0, take));
        size += take;
        if (size >= MAX_RESPONSE_BODY_BYTES) {
          answered();
          c.abort(new Error('response body limit reached')); // the rest is never read
        }
      },
      onResponseEnd() {
        answered();
        release();
      },
      onResponseError(_c, err) {
        if (statusCode !== 0)
          answered(); // reset by the peer or cut by the deadline: keep what arrived
        else failed(timedOut ? 'timeout' : describeSendError(err));
        release();
      },
    };

    // Checked again at every attempt, on the addresses DNS returns now.
    checkUrl(req.url).then(
      (url) => {
        if (timedOut) return; // released by the deadline
        dispatched = true;
        agent.dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: 'POST',
            headers: requestHeaders,
            body: req.body,
          },
          handler,
        );
      },
      (err: unknown) => {
        if (timedOut) return;
        failed(describeUrlError(err));
        release();
      },
    );
  }

  return {
    send(req, opts = {}) {
      const requestHeaders = buildHeaders(req.headers ?? {}, userAgent);
      if (closed) {
        return Promise.resolve({
          statusCode: null,
          success: false,
          error: 'sender closed',
          durationMs: 0,
          responseBody: null,
          requestHeaders,
        });
      }
      return new Promise((resolve, reject) =>
        slots.run(
          () => {
            const once = () => new Promise<AttemptResult>((done) => attempt(req, requestHeaders, done));
            (opts.around ? opts.around(once) : once()).then(resolve, reject);
          },
          opts.signal,
          () => reject(new AttemptNotStartedError()),
        ),
      );
    },
    // Once: a second call (shutdown after a test's own close, say) waits for the same close
    // instead of rejecting because the agent is already destroyed.
    close() {
      closed = true;
      closing ??= agent.close();
      return closing;
    },
  };
}
