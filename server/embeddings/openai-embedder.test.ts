import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../test/support/fake-openai-server';
import { embedLocal } from './local-embedder';
import { EmbeddingsError, OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai-embedder';

let fake: FakeOpenAI;
afterEach(async () => {
  await fake?.close();
});

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

function embedder(overrides: Partial<OpenAIEmbedderOptions> = {}) {
  return new OpenAIEmbedder({
    baseUrl: fake.url,
    model: 'text-embedding-3-small',
    dimensions: 64,
    maxRetryDelayMs: 50,
    ...overrides,
  });
}

const embeddingRequests = () => fake.requests.filter((r) => r.path === '/v1/embeddings');

describe('OpenAIEmbedder against an OpenAI-compatible server', () => {
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });

  it('sends the OpenAI request shape and returns unit vectors', async () => {
    const vs = await embedder().embed(['database failover', 'Q3 budget']);
    expect(vs).toHaveLength(2);
    for (const v of vs) {
      expect(v).toHaveLength(64);
      expect(norm(v)).toBeCloseTo(1, 10);
    }
    expect(vs[0]![5]).toBeCloseTo(embedLocal('database failover', 64)[5]!, 6);
    const [req] = fake.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/embeddings', status: 200 });
    expect(req!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['database failover', 'Q3 budget'],
      dimensions: 64,
      encoding_format: 'float',
    });
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.authorization).toBeUndefined();
  });

  it('batches by batchSize and keeps the order of the texts', async () => {
    const texts = Array.from({ length: 250 }, (_, i) => `passage number ${i} about topic ${i % 13}`);
    const vs = await embedder({ batchSize: 96 }).embed(texts);
    const reqs = embeddingRequests();
    expect(reqs).toHaveLength(3);
    expect(reqs.map((r) => (r.body as { input: string[] }).input.length)).toEqual([96, 96, 58]);
    expect((reqs[2]!.body as { input: string[] }).input[0]).toBe(texts[192]);
    expect(vs).toHaveLength(250);
    vs.forEach((v, i) => {
      expect(v[0]).toBeCloseTo(embedLocal(texts[i]!, 64)[0]!, 6);
    });
  });

  it('puts vectors back in input order by `index` when the server reorders them', async () => {
    await fake.close();
    fake = await startFakeOpenAI({ reverseData: true });
    const texts = ['alpha budget', 'beta failover', 'gamma hiring'];
    const vs = await embedder().embed(texts);
    vs.forEach((v, i) => {
      expect(v).toEqual(embedLocal(texts[i]!, 64).map((x) => expect.closeTo(x, 6)));
    });
  });

  it('answers [] for no texts without a request', async () => {
    expect(await embedder().embed([])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('sends a space for an empty text, which OpenAI would reject', async () => {
    const vs = await embedder().embed(['', 'budget']);
    expect(vs).toHaveLength(2);
    expect((fake.requests[0]!.body as { input: string[] }).input).toEqual([' ', 'budget']);
  });

  it('leaves out `dimensions` when sendDimensions is false', async () => {
    await embedder({ sendDimensions: false, dimensions: 1536 }).embed(['x']);
    expect(fake.requests[0]!.body).not.toHaveProperty('dimensions');
  });

  it('reads no OPENAI_* environment variable and logs nothing, not even with OPENAI_LOG=debug', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1');
    vi.stubEnv('OPENAI_LOG', 'debug');
    const logged = (['log', 'debug', 'info', 'warn', 'error'] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => {}),
    );
    try {
      await embedder().embed(['private meeting text']);
      expect(fake.requests[0]!.headers.authorization).toBeUndefined();
      for (const spy of logged) expect(spy).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
      for (const spy of logged) spy.mockRestore();
    }
  });

  it('keeps a path and query of the base URL', async () => {
    await embedder({ baseUrl: `${fake.url}/?api-version=1` }).embed(['x']);
    expect(fake.requests[0]!.path).toBe('/v1/embeddings?api-version=1');
  });
});

describe('OpenAIEmbedder authentication', () => {
  beforeEach(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test-123' });
  });

  it('sends the API key as a bearer token', async () => {
    await embedder({ apiKey: 'sk-test-123' }).embed(['x']);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-test-123');
    expect(fake.requests[0]!.status).toBe(200);
  });

  it('fails at once on 401 with the server message and a hint, without leaking the key', async () => {
    const err = await embedder({ apiKey: 'sk-wrong-456' })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect((err as EmbeddingsError).status).toBe(401);
    expect((err as Error).message).toMatch(
      /status 401 Incorrect API key provided\. \(check EMBEDDINGS_API_KEY\)/,
    );
    expect((err as Error).message).not.toContain('sk-wrong-456');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('OpenAIEmbedder retries', () => {
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });

  it.each([
    ['429 with Retry-After: 0', { status: 429, headers: { 'Retry-After': '0' } }],
    ['500', { status: 500, headers: { 'retry-after-ms': '5' } }],
    ['503', { status: 503, headers: { 'retry-after-ms': '5' }, body: { error: 'overloaded' } }],
    ['408', { status: 408, headers: { 'retry-after-ms': '5' } }],
    ['a dropped connection', { destroy: true }],
  ])('retries after %s, then succeeds', async (_name, failure) => {
    fake.failNext(2, failure);
    const vs = await embedder().embed(['budget', 'failover']);
    expect(vs).toHaveLength(2);
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests.map((r) => r.body)).toEqual([
      fake.requests[2]!.body,
      fake.requests[2]!.body,
      fake.requests[2]!.body,
    ]);
  });

  it('retries a request that times out', async () => {
    fake.failNext(1, { delayMs: 500 });
    const vs = await embedder({ timeoutMs: 100 }).embed(['budget']);
    expect(vs).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  it('honours Retry-After in seconds, capped by maxRetryDelayMs', async () => {
    fake.failNext(1, { status: 429, headers: { 'Retry-After': '1' } });
    let t0 = Date.now();
    await embedder({ maxRetryDelayMs: 10_000 }).embed(['x']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);

    fake.failNext(1, { status: 429, headers: { 'Retry-After': '120' } });
    t0 = Date.now();
    await embedder({ maxRetryDelayMs: 100 }).embed(['x']);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('backs off exponentially between attempts when the server names no wait', async () => {
    fake.failNext(2, { status: 500 });
    const t0 = Date.now();
    await embedder().embed(['x']);
    // the client's waits: 0.5 s, then 1 s, each shortened by up to a quarter of jitter
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1100);
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after maxRetries with the last status and message', async () => {
    fake.failNext(10, { status: 429, headers: { 'Retry-After': '0' } });
    const err = await embedder({ maxRetries: 2 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect((err as EmbeddingsError).status).toBe(429);
    expect((err as Error).message).toBe(
      `Embeddings request to ${fake.url}/embeddings failed after 3 attempts: 429 Rate limit reached, please retry`,
    );
    expect(fake.requests).toHaveLength(3);
  });

  it('reports a network error when nothing listens', async () => {
    const url = fake.url;
    await fake.close();
    const err = await new OpenAIEmbedder({
      baseUrl: url,
      model: 'm',
      dimensions: 8,
      maxRetries: 1,
    })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/failed after 2 attempts: network error \(ECONNREFUSED\)/);
    fake = await startFakeOpenAI();
  });

  it('stops waiting when the caller aborts', async () => {
    fake.failNext(10, { status: 429, headers: { 'Retry-After': '30' } });
    const controller = new AbortController();
    const pending = embedder({ maxRetryDelayMs: 60_000 }).embed(['x'], { signal: controller.signal });
    // Abort once the first attempt was answered 429 and the embedder waits to retry.
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('OpenAIEmbedder errors', () => {
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });

  it('surfaces a 400 with the server message, without retrying', async () => {
    fake.failNext(1, {
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens",
          type: 'invalid_request_error',
        },
      },
    });
    await expect(embedder().embed(['x'])).rejects.toThrow(
      `Embeddings request to ${fake.url}/embeddings failed with status 400 This model's maximum context length is 8192 tokens`,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('hints at the base URL and model on 404', async () => {
    await expect(embedder({ baseUrl: `${fake.url.replace(/\/v1$/, '')}/v2` }).embed(['x'])).rejects.toThrow(
      /status 404 .*\(check EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL\)/,
    );
  });

  it('says which setting to change when the vectors have another dimension', async () => {
    await fake.close();
    fake = await startFakeOpenAI({ forceDimensions: 1536 });
    await expect(embedder({ dimensions: 384 }).embed(['x'])).rejects.toThrow(
      'Embeddings model "text-embedding-3-small" returned 1536-dimensional vectors, but the database uses 384. ' +
        'Set EMBEDDINGS_DIMENSIONS=1536 (then run npm run reindex), or choose a model that can produce 384 dimensions.',
    );
  });

  it.each([
    ['no data', { object: 'list' }, /no "data" array/],
    ['too few vectors', { data: [{ index: 0, embedding: [1, 0] }] }, /1 embeddings for 2 inputs/],
    [
      'repeated index',
      {
        data: [
          { index: 0, embedding: [1, 0] },
          { index: 0, embedding: [0, 1] },
        ],
      },
      /repeated index 0/,
    ],
    [
      'strings',
      {
        data: [
          { index: 0, embedding: ['a', 'b'] },
          { index: 1, embedding: [0, 1] },
        ],
      },
      /not an array of numbers/,
    ],
    [
      'zero vector',
      {
        data: [
          { index: 0, embedding: [0, 0] },
          { index: 1, embedding: [0, 1] },
        ],
      },
      /all zeros/,
    ],
  ])('rejects a malformed answer: %s', async (_name, body, message) => {
    fake.failNext(1, { status: 200, body });
    await expect(embedder({ dimensions: 2 }).embed(['a', 'b'])).rejects.toThrow(message);
  });

  it('decodes base64 vectors from servers that send them anyway', async () => {
    const v = [3, 4];
    const b64 = Buffer.from(new Float32Array(v).buffer).toString('base64');
    fake.failNext(1, { status: 200, body: { data: [{ index: 0, embedding: b64 }] } });
    expect(await embedder({ dimensions: 2 }).embed(['a'])).toEqual([
      [expect.closeTo(0.6, 12), expect.closeTo(0.8, 12)],
    ]);
  });
});

describe('OpenAIEmbedder configuration', () => {
  const base = { baseUrl: 'https://api.openai.com/v1', model: 'text-embedding-3-small', dimensions: 384 };

  it.each([
    [{ baseUrl: undefined }, /^EMBEDDINGS_BASE_URL is required for the "openai" embeddings provider/],
    [{ baseUrl: '  ' }, /^EMBEDDINGS_BASE_URL is required/],
    [
      { baseUrl: 'api.openai.com/v1' },
      /^EMBEDDINGS_BASE_URL must be an http\(s\) URL .*got "api.openai.com\/v1"/,
    ],
    [{ baseUrl: 'ftp://example.com/v1' }, /^EMBEDDINGS_BASE_URL must be an http\(s\) URL/],
    [{ baseUrl: 'https://api.openai.com/v1/embeddings' }, /^EMBEDDINGS_BASE_URL is the API root/],
    [{ model: undefined }, /^EMBEDDINGS_MODEL is required/],
    [{ model: ' ' }, /^EMBEDDINGS_MODEL is required/],
    [{ dimensions: 0 }, /^EMBEDDINGS_DIMENSIONS .* must be an integer from 1 to 65536, got 0/],
    [{ dimensions: 1.5 }, /^EMBEDDINGS_DIMENSIONS/],
    [{ batchSize: 0 }, /batchSize must be an integer from 1 to 2048/],
    [{ batchSize: 5000 }, /batchSize must be an integer from 1 to 2048/],
    [{ maxRetries: -1 }, /maxRetries must be an integer/],
    [{ timeoutMs: 0 }, /timeoutMs must be an integer/],
  ])('rejects %o', (overrides, message) => {
    expect(() => new OpenAIEmbedder({ ...base, ...overrides } as OpenAIEmbedderOptions)).toThrow(message);
  });

  it('accepts a trailing slash, trims the model and reports its endpoint', () => {
    const e = new OpenAIEmbedder({
      ...base,
      baseUrl: 'http://localhost:11434/v1/',
      model: ' nomic-embed-text ',
    });
    expect(e.endpoint).toBe('http://localhost:11434/v1/embeddings');
    expect(e.model).toBe('nomic-embed-text');
    expect(e.dimensions).toBe(384);
  });

  it('uses an injected fetch', async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify({ data: [{ index: 0, embedding: [0, 2] }] }), { status: 200 });
    };
    const e = new OpenAIEmbedder({ ...base, dimensions: 2, fetch });
    expect(await e.embed(['x'])).toEqual([[0, 1]]);
    expect(calls).toEqual(['https://api.openai.com/v1/embeddings']);
  });
});

describe('fake OpenAI server: chat completions', () => {
  it('answers with the content of the callback and logs the request', async () => {
    fake = await startFakeOpenAI({ chat: (req) => ({ title: `Re: ${req.messages?.length} messages` }) });
    const res = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Summarise this meeting' }],
      }),
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { choices: { message: { content: string } }[]; usage: unknown };
    expect(JSON.parse(json.choices[0]!.message.content)).toEqual({ title: 'Re: 1 messages' });
    expect(json.usage).toMatchObject({ prompt_tokens: 3 });
    expect(fake.requests[0]).toMatchObject({
      path: '/v1/chat/completions',
      status: 200,
      body: { model: 'gpt-4o-mini' },
    });
  });

  it('fails the first requests of one route only', async () => {
    fake = await startFakeOpenAI({ failFirst: { count: 1, route: 'chat', status: 500 } });
    await embedder().embed(['x']);
    const post = () =>
      fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await post()).status).toBe(500);
    const ok = (await (await post()).json()) as { choices: { message: { content: string } }[] };
    expect(ok.choices[0]!.message.content).toBe('{}');
    expect(fake.requests.map((r) => r.status)).toEqual([200, 500, 200]);
  });
});
