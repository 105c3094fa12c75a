import type { APIError, OpenAI } from 'openai';

// The official client behind the two OpenAI-compatible providers (summaries, embeddings).
// It does the requests, the per-attempt timeout, the retries (connection errors, timeouts, 408,
// 409, 429 and 5xx; exponential backoff from 0.5 s to 8 s with jitter, or the wait a
// `Retry-After` / `retry-after-ms` header asks for) and the typed errors. Added here: the
// configuration comes only from the caller (the client's own OPENAI_* variables are overridden),
// a server's wait is capped at `maxRetryDelayMs`, the caller's signal also ends the wait between
// attempts, and the client logs nothing (its debug log would hold transcripts).
//
// The SDK (2.4 MB of source) is loaded on a provider's first request, not when the server
// starts: most servers run the offline defaults and never need it, and every module the server
// loads stays resident as source and code.

export interface OpenAIClientOptions {
  /** A validated http(s) API root; its query (e.g. an Azure `api-version`) goes with every request. */
  baseUrl: URL;
  /** Sent as `Authorization: Bearer <apiKey>`; without one, no Authorization header. */
  apiKey: string | undefined;
  /** Per attempt, until the response headers arrive. */
  timeoutMs: number;
  /** Further attempts after a retryable failure. */
  maxRetries: number;
  /** Longest wait the client does for a server's Retry-After. */
  maxRetryDelayMs: number;
  fetch?: typeof globalThis.fetch | undefined;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
type Sdk = typeof import('openai');

let sdk: Sdk | undefined;

async function loadSdk(): Promise<Sdk> {
  sdk ??= await import('openai');
  return sdk;
}

/** The client, made on the first call (which loads the SDK) and the same one after. */
export function createOpenAIClient(options: OpenAIClientOptions): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () => {
    client ??= loadSdk().then(
      (loaded) => newClient(loaded, options),
      (err: unknown) => {
        client = undefined;
        throw err;
      },
    );
    return client;
  };
}

function newClient({ default: OpenAI }: Sdk, options: OpenAIClientOptions): OpenAI {
  const root = new URL(options.baseUrl);
  const query = Object.fromEntries(root.searchParams);
  root.search = '';
  root.hash = '';
  const fetch: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return new OpenAI({
    baseURL: root.toString().replace(/\/+$/, ''),
    apiKey: options.apiKey ?? 'unused',
    ...(!options.apiKey && { defaultHeaders: { Authorization: null } }),
    ...(Object.keys(query).length > 0 && { defaultQuery: query }),
    organization: null,
    project: null,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    fetch: capRetryAfter(fetch, options.maxRetryDelayMs),
    logLevel: 'off',
  });
}

/** The URL of `path` under the API root, for error messages. */
export function endpointUrl(baseUrl: URL, path: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url.toString();
}

/** The client waits as long as a server asks; a longer wait than `maxMs` becomes `maxMs`. */
function capRetryAfter(fetch: Fetch, maxMs: number): Fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const wait = response.ok ? undefined : retryAfterMs(response.headers);
    if (wait === undefined || wait <= maxMs) return response;
    const headers = new Headers(response.headers);
    headers.delete('retry-after');
    headers.set('retry-after-ms', String(maxMs));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** OpenAI's retry-after-ms, else Retry-After in seconds or as an HTTP date; undefined when absent. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts: the client
 * stops a request in flight on abort, but not its wait before the next attempt.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** `err` as the SDK's error, or undefined. Only a loaded SDK throws its errors. */
export function apiErrorOf(err: unknown): APIError | undefined {
  return sdk && err instanceof sdk.APIError ? err : undefined;
}

/** Whether the client gave up waiting for an answer (its per-attempt timeout). */
export function isTimeout(err: APIError): boolean {
  return sdk !== undefined && err instanceof sdk.APIConnectionTimeoutError;
}

/** Whether the client retried this failure (so it gave up after its last attempt). */
export function isRetryable(err: unknown): boolean {
  if (!sdk || err instanceof sdk.APIUserAbortError) return false;
  if (err instanceof sdk.APIConnectionError) return true;
  if (!(err instanceof sdk.APIError) || err.status === undefined) return false;
  return err.status === 408 || err.status === 409 || err.status === 429 || err.status >= 500;
}

/** The server's error message of a failed answer, without the status the client puts first. */
export function serverMessage(err: APIError): string {
  const inner = err.error as { message?: unknown } | string | undefined;
  const text =
    typeof inner === 'string'
      ? inner
      : typeof inner?.message === 'string'
        ? inner.message
        : err.message.replace(/^\d{3} /, '');
  return excerpt(text) || '(empty body)';
}

/** What went wrong below a connection error: the first error code in the causes, else a message. */
export function connectionDetail(err: unknown): string {
  let detail = err instanceof Error ? err.message : String(err);
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string') return code;
    if (e !== err) detail = e.message;
  }
  return detail;
}

/** The client parses only bodies labelled JSON; this parses the rest or throws what came instead. */
export function jsonBody(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new SyntaxError(excerpt(value) || '(empty body)');
  }
}

export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
