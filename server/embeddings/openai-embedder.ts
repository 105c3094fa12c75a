import type { EmbeddingProvider } from './provider';

// D19 `openai`: any OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Azure-style proxies,
// Ollama, vLLM, LM Studio, text-embeddings-inference...). Configuration arrives through the
// constructor; the names in error messages are the environment variables the env module maps to it.

export interface OpenAIEmbedderOptions {
  /** API root, e.g. "https://api.openai.com/v1" or "http://localhost:11434/v1" (EMBEDDINGS_BASE_URL). */
  baseUrl: string | undefined;
  /** Sent as `Authorization: Bearer <apiKey>` when given (EMBEDDINGS_API_KEY). */
  apiKey?: string | undefined;
  /** e.g. "text-embedding-3-small" (EMBEDDINGS_MODEL). */
  model: string | undefined;
  /** The database's dimension; asked of the server and checked on every vector. */
  dimensions: number;
  /** Texts per request (default 96). */
  batchSize?: number;
  /** Retries of one request after a 429, a 5xx, a timeout or a network error (default 5). */
  maxRetries?: number;
  /** Per attempt, including reading the body (default 30 000). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /** First backoff delay; doubles on every retry, with jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Upper bound of one wait, Retry-After included (default 30 000). */
  maxRetryDelayMs?: number;
  /**
   * Send `dimensions` in the request (default true). Models with a fixed size that reject the
   * parameter (e.g. text-embedding-ada-002) need false; their size must then equal `dimensions`.
   */
  sendDimensions?: boolean;
}

export class EmbeddingsError extends Error {
  constructor(
    message: string,
    /** The HTTP status of the failed answer, when there was one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbeddingsError';
  }
}

const MAX_BATCH = 2048; // OpenAI's limit of inputs per request

function requireInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new EmbeddingsError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

function endpointOf(baseUrl: string | undefined): string {
  const raw = baseUrl?.trim();
  if (!raw) {
    throw new EmbeddingsError(
      'EMBEDDINGS_BASE_URL is required for the "openai" embeddings provider, e.g. https://api.openai.com/v1 or http://localhost:11434/v1',
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EmbeddingsError(
      `EMBEDDINGS_BASE_URL must be an http(s) URL such as https://api.openai.com/v1, got "${raw}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EmbeddingsError(
      `EMBEDDINGS_BASE_URL must be an http(s) URL such as https://api.openai.com/v1, got "${raw}"`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/embeddings$/.test(path)) {
    throw new EmbeddingsError(
      `EMBEDDINGS_BASE_URL is the API root that /embeddings is appended to (e.g. https://api.openai.com/v1), got "${raw}"`,
    );
  }
  url.pathname = `${path}/embeddings`;
  return url.toString();
}

/** A failure worth another attempt: 429, 5xx, timeout, network. */
class RetryableError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryAfterMs: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function retryAfterMsOf(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function serverMessageOf(body: string): string {
  try {
    const json: unknown = JSON.parse(body);
    if (json && typeof json === 'object') {
      const { error, message } = json as { error?: unknown; message?: unknown };
      if (typeof error === 'string') return error;
      if (
        error &&
        typeof error === 'object' &&
        typeof (error as { message?: unknown }).message === 'string'
      ) {
        return (error as { message: string }).message;
      }
      if (typeof message === 'string') return message;
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  const text = body.trim().replace(/\s+/g, ' ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text || '(empty body)';
}

function hintFor(status: number): string {
  if (status === 401 || status === 403) return ' (check EMBEDDINGS_API_KEY)';
  if (status === 404) return ' (check EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL)';
  return '';
}

function decodeBase64Floats(s: string): number[] {
  const bytes = Buffer.from(s, 'base64');
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  return Array.from(floats);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class OpenAIEmbedder implements EmbeddingProvider {
  readonly model: string;
  readonly dimensions: number;
  readonly endpoint: string;
  private readonly apiKey: string | undefined;
  private readonly batchSize: number;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly sendDimensions: boolean;
  private readonly fetch: typeof globalThis.fetch;

  constructor(options: OpenAIEmbedderOptions) {
    this.endpoint = endpointOf(options.baseUrl);
    const model = options.model?.trim();
    if (!model) {
      throw new EmbeddingsError(
        'EMBEDDINGS_MODEL is required for the "openai" embeddings provider, e.g. text-embedding-3-small',
      );
    }
    this.model = model;
    this.dimensions = requireInteger(
      'EMBEDDINGS_DIMENSIONS (the embedding dimension)',
      options.dimensions,
      1,
      65_536,
    );
    this.apiKey = options.apiKey?.trim() || undefined;
    this.batchSize = requireInteger('Embeddings batchSize', options.batchSize ?? 96, 1, MAX_BATCH);
    this.maxRetries = requireInteger('Embeddings maxRetries', options.maxRetries ?? 5, 0, 100);
    this.timeoutMs = requireInteger('Embeddings timeoutMs', options.timeoutMs ?? 30_000, 1);
    this.retryBaseDelayMs = requireInteger('Embeddings retryBaseDelayMs', options.retryBaseDelayMs ?? 500, 0);
    this.maxRetryDelayMs = requireInteger('Embeddings maxRetryDelayMs', options.maxRetryDelayMs ?? 30_000, 0);
    this.sendDimensions = options.sendDimensions ?? true;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function')
      throw new EmbeddingsError('No fetch implementation available for the embeddings provider');
    this.fetch = f;
  }

  async embed(texts: string[], opts: { signal?: AbortSignal } = {}): Promise<number[][]> {
    texts.forEach((t, i) => {
      if (typeof t !== 'string') throw new TypeError(`embed: texts[${i}] is not a string`);
    });
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      out.push(...(await this.embedBatch(batch, start, opts.signal)));
    }
    return out;
  }

  private async embedBatch(
    batch: string[],
    offset: number,
    signal: AbortSignal | undefined,
  ): Promise<number[][]> {
    // OpenAI rejects empty strings; a space embeds as "nothing said".
    const input = batch.map((t) => (t.trim() === '' ? ' ' : t));
    const body = JSON.stringify({
      model: this.model,
      input,
      ...(this.sendDimensions ? { dimensions: this.dimensions } : {}),
      encoding_format: 'float',
    });
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      try {
        return this.parse(await this.post(body, signal), batch.length, offset);
      } catch (err) {
        if (!(err instanceof RetryableError)) throw err;
        if (attempt >= this.maxRetries) {
          throw new EmbeddingsError(
            `Embeddings request to ${this.endpoint} failed after ${attempt + 1} attempts: ${err.message}`,
            err.status,
            { cause: err },
          );
        }
        const backoff = Math.min(this.maxRetryDelayMs, this.retryBaseDelayMs * 2 ** attempt);
        const jittered = backoff / 2 + Math.random() * (backoff / 2);
        await sleep(Math.min(this.maxRetryDelayMs, err.retryAfterMs ?? jittered), signal);
      }
    }
  }

  /** One attempt; the parsed JSON body of a 2xx, else a RetryableError or an EmbeddingsError. */
  private async post(body: string, signal: AbortSignal | undefined): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json',
    };
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    let status: number;
    let text: string;
    let responseHeaders: Headers;
    try {
      const res = await this.fetch(this.endpoint, { method: 'POST', headers, body, signal: combined });
      status = res.status;
      responseHeaders = res.headers;
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new RetryableError(`no answer within ${this.timeoutMs} ms`, undefined, undefined, {
          cause: err,
        });
      }
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new RetryableError(`network error (${detail})`, undefined, undefined, { cause: err });
    }
    if (status >= 200 && status < 300) {
      try {
        return JSON.parse(text);
      } catch {
        throw new EmbeddingsError(
          `Embeddings endpoint ${this.endpoint} answered ${status} with a body that is not JSON: ${serverMessageOf(text)}`,
          status,
        );
      }
    }
    const message = `${status} ${serverMessageOf(text)}`;
    if (status === 429 || status >= 500)
      throw new RetryableError(message, status, retryAfterMsOf(responseHeaders));
    throw new EmbeddingsError(
      `Embeddings request to ${this.endpoint} failed with status ${message}${hintFor(status)}`,
      status,
    );
  }

  private parse(json: unknown, expected: number, offset: number): number[][] {
    const bad = (why: string) =>
      new EmbeddingsError(`Embeddings endpoint ${this.endpoint} returned an unexpected answer: ${why}`);
    const data = (json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw bad('no "data" array');
    if (data.length !== expected) throw bad(`${data.length} embeddings for ${expected} inputs`);
    const out = new Array<number[] | undefined>(expected);
    data.forEach((item: unknown, position) => {
      const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      if (
        typeof index !== 'number' ||
        !Number.isInteger(index) ||
        index < 0 ||
        index >= expected ||
        out[index]
      ) {
        throw bad(`invalid or repeated index ${JSON.stringify(index)}`);
      }
      const vector = typeof embedding === 'string' ? decodeBase64Floats(embedding) : embedding;
      if (!Array.isArray(vector) || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw bad(`embedding ${index} is not an array of numbers`);
      }
      if (vector.length !== this.dimensions) {
        throw new EmbeddingsError(
          `Embeddings model "${this.model}" returned ${vector.length}-dimensional vectors, but the database uses ` +
            `${this.dimensions}. Set EMBEDDINGS_DIMENSIONS=${vector.length} (then run npm run reindex), ` +
            `or choose a model that can produce ${this.dimensions} dimensions.`,
        );
      }
      let sumSq = 0;
      for (const x of vector as number[]) sumSq += x * x;
      if (sumSq === 0) throw bad(`embedding of input ${offset + index} is all zeros`);
      const inv = 1 / Math.sqrt(sumSq);
      out[index] = (vector as number[]).map((x) => x * inv);
    });
    return out as number[][];
  }
}
