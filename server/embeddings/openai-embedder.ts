import type { OpenAI } from 'openai';
import {
  abortable,
  apiErrorOf,
  connectionDetail,
  createOpenAIClient,
  endpointUrl,
  isRetryable,
  isTimeout,
  jsonBody,
  serverMessage,
} from '../openai-client';
import type { EmbeddingProvider } from './provider';

// The `openai` embedder: any OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Azure-style proxies,
// Ollama, vLLM, LM Studio, text-embeddings-inference...) through the official client (see
// ../openai-client.ts for its retries). Configuration arrives through the constructor; the names
// in error messages are the environment variables the env module maps to it.

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
  /** Retries of one request after a 408, 409, 429, 5xx, a timeout or a network error (default 5). */
  maxRetries?: number;
  /** Per attempt, until the response headers arrive (default 30 000). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /** Upper bound of a wait a server asks for with Retry-After (default 30 000). */
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
const BASE_URL_EXAMPLE = 'https://api.openai.com/v1';

function requireInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new EmbeddingsError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

function apiRootOf(baseUrl: string | undefined): URL {
  const raw = baseUrl?.trim();
  if (!raw) {
    throw new EmbeddingsError(
      `EMBEDDINGS_BASE_URL is required for the "openai" embeddings provider, e.g. ${BASE_URL_EXAMPLE} or http://localhost:11434/v1`,
    );
  }
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new EmbeddingsError(
      `EMBEDDINGS_BASE_URL must be an http(s) URL such as ${BASE_URL_EXAMPLE}, got "${raw}"`,
    );
  }
  if (/\/embeddings\/*$/.test(url.pathname)) {
    throw new EmbeddingsError(
      `EMBEDDINGS_BASE_URL is the API root that /embeddings is appended to (e.g. ${BASE_URL_EXAMPLE}), got "${raw}"`,
    );
  }
  return url;
}

function hintFor(status: number | undefined): string {
  if (status === 401 || status === 403) return ' (check EMBEDDINGS_API_KEY)';
  if (status === 404) return ' (check EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL)';
  return '';
}

function decodeBase64Floats(s: string): number[] {
  const bytes = Buffer.from(s, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4)));
}

export class OpenAIEmbedder implements EmbeddingProvider {
  readonly provider = 'openai';
  readonly model: string;
  readonly dimensions: number;
  /** Where the requests go, for messages. */
  readonly endpoint: string;
  private readonly batchSize: number;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly sendDimensions: boolean;
  private readonly client: () => Promise<OpenAI>;

  constructor(options: OpenAIEmbedderOptions) {
    const baseUrl = apiRootOf(options.baseUrl);
    this.endpoint = endpointUrl(baseUrl, '/embeddings');
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
    this.batchSize = requireInteger('Embeddings batchSize', options.batchSize ?? 96, 1, MAX_BATCH);
    this.maxRetries = requireInteger('Embeddings maxRetries', options.maxRetries ?? 5, 0, 100);
    this.timeoutMs = requireInteger('Embeddings timeoutMs', options.timeoutMs ?? 30_000, 1);
    this.sendDimensions = options.sendDimensions ?? true;
    this.client = createOpenAIClient({
      baseUrl,
      apiKey: options.apiKey?.trim() || undefined,
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
      maxRetryDelayMs: requireInteger('Embeddings maxRetryDelayMs', options.maxRetryDelayMs ?? 30_000, 0),
      fetch: options.fetch,
    });
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
    signal?.throwIfAborted();
    let answer: unknown;
    try {
      const request = (await this.client()).embeddings.create(
        {
          model: this.model,
          // OpenAI rejects empty strings; a space embeds as "nothing said".
          input: batch.map((t) => (t.trim() === '' ? ' ' : t)),
          ...(this.sendDimensions && { dimensions: this.dimensions }),
          encoding_format: 'float',
        },
        { signal },
      );
      answer = jsonBody(await abortable(request, signal));
    } catch (err) {
      throw this.failure(err, signal);
    }
    return this.parse(answer, batch.length, offset);
  }

  private failure(err: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason;
    if (err instanceof SyntaxError) {
      return new EmbeddingsError(
        `Embeddings endpoint ${this.endpoint} answered with a body that is not JSON: ${err.message}`,
        undefined,
        { cause: err },
      );
    }
    const apiError = apiErrorOf(err);
    if (!apiError) return err;
    const what = isTimeout(apiError)
      ? `no answer within ${this.timeoutMs} ms`
      : apiError.status === undefined
        ? `network error (${connectionDetail(apiError)})`
        : `${apiError.status} ${serverMessage(apiError)}`;
    const message = isRetryable(apiError)
      ? `Embeddings request to ${this.endpoint} failed after ${this.maxRetries + 1} attempts: ${what}`
      : `Embeddings request to ${this.endpoint} failed with status ${what}${hintFor(apiError.status)}`;
    return new EmbeddingsError(message, apiError.status, { cause: apiError });
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
