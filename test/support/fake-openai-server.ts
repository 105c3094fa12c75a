import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { embedLocal } from '../../server/embeddings/local-embedder';

// A test helper: a real HTTP server on 127.0.0.1 that speaks enough of the OpenAI protocol for
// `POST /v1/embeddings` and `POST /v1/chat/completions`, with failure injection and a log of what
// it received. Vectors are deterministic (the local embedder's) so tests can compare them.
//
//   const fake = await startFakeOpenAI({ chat: (req) => ({ title: 'x' }) });
//   new OpenAIEmbedder({ baseUrl: fake.url, model: 'm', dimensions: 64 });
//   fake.failNext(2, { status: 429, headers: { 'Retry-After': '0' } });
//   ...
//   await fake.close();

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. "/v1/embeddings". */
  path: string;
  /** Lower-cased header names, as Node gives them. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** The status answered (undefined while pending, or when the connection was dropped). */
  status?: number;
}

/** An injected answer in place of the normal one. */
export interface FakeFailure {
  status?: number;
  headers?: Record<string, string>;
  /** JSON body; default an OpenAI-style error object naming the status. */
  body?: unknown;
  /** Wait before answering; with no status and no body, then answer normally (a slow server). */
  delayMs?: number;
  /** Drop the connection without answering (a network error for the client). */
  destroy?: boolean;
}

export type FakeRoute = 'embeddings' | 'chat';

export interface ChatCompletionRequest {
  model?: string;
  messages?: { role: string; content: unknown }[];
  response_format?: unknown;
  [key: string]: unknown;
}

export interface FakeOpenAIOptions {
  /** Vector for one input; default the local embedder's vector of the requested dimensions. */
  embed?: (input: string, dimensions: number, model: string) => number[];
  /** Dimensions when the request names none (default 1536, as text-embedding-3-small). */
  defaultDimensions?: number;
  /** Answer vectors of this size whatever was asked (a model that ignores `dimensions`). */
  forceDimensions?: number;
  /** Return `data` in reverse order (clients must order by `index`). */
  reverseData?: boolean;
  /**
   * The assistant message content of a chat completion: a string is sent as is, anything else as
   * JSON. Default: `{}`.
   */
  chat?: (request: ChatCompletionRequest) => unknown;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get 401. */
  apiKey?: string;
  /** The first N requests (to any route, or to `route`) get `failure` instead of an answer. */
  failFirst?: { count: number; route?: FakeRoute } & FakeFailure;
  /** Called for every request; return a failure to answer with it instead. */
  intercept?: (request: RecordedRequest, route: FakeRoute | undefined) => FakeFailure | undefined;
}

export interface FakeOpenAI {
  /** API root, e.g. "http://127.0.0.1:54321/v1". */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** The next `count` requests (to any route, or to `route`) get `failure`. */
  failNext(count: number, failure: FakeFailure & { route?: FakeRoute }): void;
  /** Stops the server and drops open connections; calling it again does nothing. */
  close(): Promise<void>;
}

function openAIError(
  status: number,
  message: string,
  type = 'invalid_request_error',
  code: string | null = null,
) {
  return { status, body: { error: { message, type, param: null, code } } };
}

const countTokens = (s: string) => s.split(/\s+/).filter(Boolean).length;

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const pendingFailures: (FakeFailure & { route?: FakeRoute; remaining: number })[] = [];
  if (options.failFirst && options.failFirst.count > 0) {
    pendingFailures.push({ ...options.failFirst, remaining: options.failFirst.count });
  }
  let chatCounter = 0;

  function takeFailure(route: FakeRoute | undefined): FakeFailure | undefined {
    const f = pendingFailures.find((p) => p.remaining > 0 && (!p.route || p.route === route));
    if (!f) return undefined;
    f.remaining--;
    return f;
  }

  function embeddings(body: Record<string, unknown>): { status: number; body: unknown } {
    const { model, input, dimensions, encoding_format: format = 'float' } = body;
    if (typeof model !== 'string' || model === '') {
      return openAIError(400, 'you must provide a model parameter');
    }
    const inputs = typeof input === 'string' ? [input] : input;
    if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((s) => typeof s === 'string')) {
      return openAIError(
        400,
        "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
      );
    }
    if (inputs.length > 2048)
      return openAIError(400, `'$.input' must have at most 2048 items, got ${inputs.length}`);
    if (inputs.some((s) => s === '')) {
      return openAIError(
        400,
        "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
      );
    }
    if (
      dimensions !== undefined &&
      (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1)
    ) {
      return openAIError(400, `Invalid value for 'dimensions': ${JSON.stringify(dimensions)}`);
    }
    if (format !== 'float' && format !== 'base64') {
      return openAIError(400, `Invalid value for 'encoding_format': ${JSON.stringify(format)}`);
    }
    const size =
      options.forceDimensions ?? (dimensions as number | undefined) ?? options.defaultDimensions ?? 1536;
    const embed = options.embed ?? ((text: string, d: number) => embedLocal(text, d));
    const data = (inputs as string[]).map((text, index) => {
      const vector = embed(text, size, model);
      const embedding =
        format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    });
    if (options.reverseData) data.reverse();
    const tokens = (inputs as string[]).reduce((n, s) => n + countTokens(s), 0);
    return {
      status: 200,
      body: { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
    };
  }

  function chat(body: ChatCompletionRequest): { status: number; body: unknown } {
    if (typeof body.model !== 'string' || body.model === '')
      return openAIError(400, 'you must provide a model parameter');
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return openAIError(400, "'messages' must be a non-empty array");
    }
    if (body.stream) return openAIError(400, 'the fake server does not stream');
    const result = options.chat ? options.chat(body) : {};
    const content = typeof result === 'string' ? result : JSON.stringify(result);
    const promptTokens = body.messages.reduce(
      (n, m) => n + (typeof m.content === 'string' ? countTokens(m.content) : 0),
      0,
    );
    const completionTokens = countTokens(content);
    chatCounter++;
    return {
      status: 200,
      body: {
        id: `chatcmpl-fake-${chatCounter}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      },
    };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = raw;
        try {
          body = raw === '' ? undefined : JSON.parse(raw);
        } catch {
          // keep the raw text
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers, body };
        requests.push(recorded);

        const send = (status: number, payload: unknown, extra: Record<string, string> = {}) => {
          recorded.status = status;
          res.writeHead(status, { 'Content-Type': 'application/json', ...extra });
          res.end(JSON.stringify(payload));
        };

        const pathname = (req.url ?? '').split('?')[0];
        const route: FakeRoute | undefined =
          pathname === '/v1/embeddings'
            ? 'embeddings'
            : pathname === '/v1/chat/completions'
              ? 'chat'
              : undefined;

        const failure = options.intercept?.(recorded, route) ?? takeFailure(route);
        if (failure) {
          if (failure.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
          if (failure.destroy) {
            req.socket.destroy();
            return;
          }
          if (req.socket.destroyed) return;
          const slowOnly = failure.status === undefined && failure.body === undefined;
          if (!slowOnly) {
            const status = failure.status ?? 500;
            const payload =
              failure.body ??
              openAIError(
                status,
                status === 429 ? 'Rate limit reached, please retry' : `Injected failure ${status}`,
                status === 429 ? 'rate_limit_error' : 'server_error',
              ).body;
            return send(status, payload, failure.headers);
          }
        }

        if (options.apiKey !== undefined && headers.authorization !== `Bearer ${options.apiKey}`) {
          const e = openAIError(
            401,
            'Incorrect API key provided.',
            'invalid_request_error',
            'invalid_api_key',
          );
          return send(e.status, e.body);
        }
        if (!route || req.method !== 'POST') {
          const e = openAIError(404, `Invalid URL (${req.method} ${pathname})`);
          return send(e.status, e.body);
        }
        if (!body || typeof body !== 'object' || Array.isArray(body)) {
          const e = openAIError(400, 'We could not parse the JSON body of your request.');
          return send(e.status, e.body);
        }
        try {
          const answer =
            route === 'embeddings'
              ? embeddings(body as Record<string, unknown>)
              : chat(body as ChatCompletionRequest);
          send(answer.status, answer.body);
        } catch (err) {
          const e = openAIError(500, `fake server handler failed: ${(err as Error).message}`, 'server_error');
          send(e.status, e.body);
        }
      })();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(count, failure) {
      if (count > 0) pendingFailures.push({ ...failure, remaining: count });
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
