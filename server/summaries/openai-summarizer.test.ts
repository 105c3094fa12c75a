import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Summary } from '../notes/summary';
import {
  OpenAISummarizer,
  SummarizerError,
  renderUserMessage,
  summaryJsonSchema,
  type OpenAISummarizerOptions,
} from './openai-summarizer';
import type { SummarizerInput } from './summarizer';

// A tiny OpenAI-compatible server: each request to POST /v1/chat/completions takes the next
// scripted reply and is recorded for assertions.
interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
  /** Drop the connection without answering. */
  hangUp?: boolean;
}
interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

let server: Server;
let baseUrl: string;
const requests: RecordedRequest[] = [];
const replies: ScriptedReply[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      requests.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(raw) });
      const reply = replies.shift() ?? {
        status: 500,
        body: { error: { message: 'no scripted reply left' } },
      };
      if (reply.hangUp) {
        req.socket.destroy();
        return;
      }
      const timer = setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      }, reply.delayMs ?? 0);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests.length = 0;
  replies.length = 0;
});

const input: SummarizerInput = {
  title: 'Acme discovery call',
  language: 'en',
  segments: [
    { speaker: 'Maria', content: 'Hi everyone, thanks for joining.', startTime: 0 },
    { speaker: 'Tom', content: 'We have a budget of $40k for the first year.', startTime: 12.5 },
    { speaker: 'Maria', content: "Great. I'll send the proposal by Friday.", startTime: 30 },
  ],
};

const goodSummary: Summary = {
  context: 'Acme wants a new ticketing system.',
  decisions: ['Run a pilot with the Berlin team'],
  action_items: [{ task: 'Send the proposal', owner: 'Maria', deadline: 'by Friday' }],
  participants: ['Maria', 'Tom'],
  next_step: 'Send the proposal',
  budget_mentioned: '$40k',
  sentiment: 'positive',
};

function completion(content: string | null, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content, ...extra }, finish_reason: 'stop' }],
  };
}

function summarizer(options: Partial<OpenAISummarizerOptions> = {}) {
  return new OpenAISummarizer({
    baseUrl,
    apiKey: 'sk-test',
    model: 'test-model',
    ...options,
  });
}

describe('OpenAISummarizer over HTTP', () => {
  it('sends model, system prompt, transcript, strict json_schema and the bearer token; returns the summary', async () => {
    replies.push({ body: completion(JSON.stringify(goodSummary)) });
    const s = summarizer();
    expect(s.name).toBe('openai:test-model');

    expect(await s.summarize(input)).toEqual(goodSummary);

    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer sk-test');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toEqual({
      model: 'test-model',
      messages: [
        { role: 'system', content: expect.stringContaining('meeting transcripts') },
        {
          role: 'user',
          content: [
            'Title: Acme discovery call',
            'Language: en',
            '',
            'Transcript:',
            'Maria: Hi everyone, thanks for joining.',
            'Tom: We have a budget of $40k for the first year.',
            "Maria: Great. I'll send the proposal by Friday.",
          ].join('\n'),
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'summary', strict: true, schema: summaryJsonSchema() },
      },
    });
  });

  it('sends a schema that strict structured output accepts: an object at the root, all fields required, closed', () => {
    const schema = summaryJsonSchema() as any;
    expect(schema.type).toBe('object');
    expect(schema.$ref).toBeUndefined();
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual([
      'context',
      'decisions',
      'action_items',
      'participants',
      'next_step',
      'budget_mentioned',
      'sentiment',
    ]);
    expect(schema.properties.action_items.items).toMatchObject({
      type: 'object',
      required: ['task', 'owner', 'deadline'],
      additionalProperties: false,
    });
    expect(schema.properties.context.type).toEqual(['string', 'null']);
  });

  it('sends no Authorization header without an API key', async () => {
    replies.push({ body: completion(JSON.stringify(goodSummary)) });
    await summarizer({ apiKey: undefined }).summarize(input);
    expect(requests[0]!.headers.authorization).toBeUndefined();
  });

  it('uses the fetch it is given', async () => {
    replies.push({ body: completion(JSON.stringify(goodSummary)) });
    const urls: string[] = [];
    const fetch: typeof globalThis.fetch = (url, init) => {
      urls.push(String(url));
      return globalThis.fetch(url, init);
    };
    await summarizer({ fetch, baseUrl: `${baseUrl}/` }).summarize(input);
    expect(urls).toEqual([`${baseUrl}/chat/completions`]);
  });

  it('retries once with a corrective message after invalid JSON', async () => {
    replies.push(
      { body: completion('{"context": "Acme wants') },
      { body: completion(JSON.stringify(goodSummary)) },
    );

    expect(await summarizer().summarize(input)).toEqual(goodSummary);

    expect(requests).toHaveLength(2);
    const messages = requests[1]!.body.messages;
    expect(messages).toHaveLength(4);
    expect(messages[2]).toEqual({ role: 'assistant', content: '{"context": "Acme wants' });
    expect(messages[3].role).toBe('user');
    expect(messages[3].content).toMatch(/not valid JSON/);
    expect(requests[1]!.body.response_format).toEqual(requests[0]!.body.response_format);
  });

  it('accepts JSON wrapped in a Markdown fence from servers that ignore response_format', async () => {
    replies.push({ body: completion(`Here you go:\n\`\`\`json\n${JSON.stringify(goodSummary)}\n\`\`\``) });
    expect(await summarizer().summarize(input)).toEqual(goodSummary);
    expect(requests).toHaveLength(1);
  });

  it('throws a clear error when the reply misses the schema twice', async () => {
    const bad = JSON.stringify({ ...goodSummary, decisions: 'none', sentiment: undefined });
    replies.push({ body: completion(bad) }, { body: completion(bad) });

    const error = await summarizer()
      .summarize(input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SummarizerError);
    expect((error as SummarizerError).message).toMatch(
      /no valid summary after a corrective retry: the JSON did not match the Summary schema/,
    );
    expect((error as SummarizerError).message).toMatch(/decisions/);
    expect((error as SummarizerError).retryable).toBe(false);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.body.messages[3].content).toMatch(/did not match the Summary schema/);
  });

  it('treats a refusal like an unusable reply', async () => {
    replies.push(
      { body: completion(null, { refusal: 'I cannot help with that.' }) },
      { body: completion(null, { refusal: 'Still no.' }) },
    );
    await expect(summarizer().summarize(input)).rejects.toThrow(/the model refused: Still no\./);
    expect(requests).toHaveLength(2);
  });

  it('waits for Retry-After after a 429 and then succeeds', async () => {
    replies.push(
      { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached' } } },
      { body: completion(JSON.stringify(goodSummary)) },
    );
    const started = Date.now();

    expect(await summarizer().summarize(input)).toEqual(goodSummary);

    expect(requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('retries 5xx and 408 answers and dropped connections', async () => {
    const soon = { 'retry-after-ms': '5' };
    replies.push(
      { status: 503, headers: soon, body: { error: { message: 'overloaded' } } },
      { hangUp: true },
      { status: 500, headers: soon, body: 'upstream exploded' },
      { status: 408, headers: soon, body: { error: { message: 'request timeout' } } },
      { body: completion(JSON.stringify(goodSummary)) },
    );
    expect(await summarizer({ maxRetries: 4 }).summarize(input)).toEqual(goodSummary);
    expect(requests).toHaveLength(5);
  });

  it('gives up after maxRetries and names the status and the server message', async () => {
    for (let i = 0; i < 3; i++)
      replies.push({
        status: 429,
        headers: { 'retry-after-ms': '10' },
        body: { error: { message: 'Rate limit reached' } },
      });
    const error = (await summarizer({ maxRetries: 2 })
      .summarize(input)
      .catch((e: unknown) => e)) as SummarizerError;
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      `LLM request to ${baseUrl}/chat/completions failed with 429 Too Many Requests: Rate limit reached (gave up after 3 attempts)`,
    );
    expect(requests).toHaveLength(3);
  });

  it.each([
    [
      401,
      { error: { message: 'Incorrect API key provided: sk-test.', type: 'invalid_request_error' } },
      '401 Unauthorized: Incorrect API key provided: sk-test.',
    ],
    [
      400,
      { error: { message: "Invalid schema for response_format 'summary'" } },
      "400 Bad Request: Invalid schema for response_format 'summary'",
    ],
    [404, 'model not found', '404 Not Found: model not found'],
  ])('fails at once on %i with the status and the server message', async (status, body, expected) => {
    replies.push({ status, body });
    const error = (await summarizer()
      .summarize(input)
      .catch((e: unknown) => e)) as SummarizerError;
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error.message).toBe(`LLM request to ${baseUrl}/chat/completions failed with ${expected}`);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('times out a slow attempt', async () => {
    replies.push({ delayMs: 2_000, body: completion(JSON.stringify(goodSummary)) });
    const error = (await summarizer({ timeoutMs: 100, maxRetries: 0 })
      .summarize(input)
      .catch((e: unknown) => e)) as SummarizerError;
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error.message).toMatch(/timed out after 100 ms \(gave up after 1 attempt\)$/);
    expect(error.retryable).toBe(true);
  });

  it("stops at once when the caller's signal aborts, without retrying", async () => {
    replies.push({ delayMs: 2_000, body: completion(JSON.stringify(goodSummary)) });
    const controller = new AbortController();
    const summarized = summarizer().summarize(input, { signal: controller.signal });
    // Abort while the server holds the request (not on a timer, which a loaded machine can beat).
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    controller.abort(new Error('shutting down'));
    await expect(summarized).rejects.toThrow('shutting down');
    expect(requests).toHaveLength(1);
  });

  it('fails clearly on a 200 whose body is not a chat completion', async () => {
    replies.push({ headers: { 'content-type': 'text/html' }, body: '<html>proxy login</html>' });
    await expect(summarizer().summarize(input)).rejects.toThrow(
      /answered with a body that is not JSON: <html>proxy login<\/html>$/,
    );
    replies.push({ body: '<html>proxy login</html>' }); // labelled application/json
    await expect(summarizer().summarize(input)).rejects.toThrow(
      /answered with a body that is not JSON: .*<html>prox/,
    );
    replies.push({ body: { object: 'list' } });
    await expect(summarizer().summarize(input)).rejects.toThrow(/answered without choices\[0\]\.message/);
    expect(requests).toHaveLength(3);
  });
});

describe('OpenAISummarizer configuration', () => {
  it.each([
    [{ baseUrl: undefined, model: 'm' }, /LLM_BASE_URL is required/],
    [{ baseUrl: '  ', model: 'm' }, /LLM_BASE_URL is required/],
    [{ baseUrl: 'api.openai.com/v1', model: 'm' }, /LLM_BASE_URL is not a valid URL/],
    [{ baseUrl: 'ftp://example.com/v1', model: 'm' }, /LLM_BASE_URL must be an http\(s\) URL/],
    [{ baseUrl: 'https://api.openai.com/v1', model: undefined }, /LLM_MODEL is required/],
    [{ baseUrl: 'https://api.openai.com/v1', model: ' ' }, /LLM_MODEL is required/],
    [
      { baseUrl: 'https://api.openai.com/v1', model: 'm', timeoutMs: 0 },
      /timeoutMs must be a positive number/,
    ],
    [
      { baseUrl: 'https://api.openai.com/v1', model: 'm', maxRetries: -1 },
      /maxRetries must be a non-negative integer/,
    ],
  ])('rejects %j', (options, message) => {
    expect(() => new OpenAISummarizer(options as unknown as OpenAISummarizerOptions)).toThrow(message);
  });

  it('keeps the beginning and the end of a long transcript', () => {
    const long: SummarizerInput = {
      title: null,
      language: 'de',
      segments: Array.from({ length: 2_000 }, (_, i) => ({
        speaker: i % 2 ? 'Jana' : 'Max',
        content: `Satz Nummer ${i} mit etwas Inhalt.`,
        startTime: i,
      })),
    };
    const message = renderUserMessage(long, 4_000);
    const transcript = message.slice(message.indexOf('Transcript:\n') + 'Transcript:\n'.length);
    expect(
      message.startsWith(
        'Title: (none)\nLanguage: de\n\nTranscript:\nMax: Satz Nummer 0 mit etwas Inhalt.\n',
      ),
    ).toBe(true);
    expect(message.endsWith('\nJana: Satz Nummer 1999 mit etwas Inhalt.')).toBe(true);
    expect(transcript.length).toBeLessThanOrEqual(4_000);
    expect(transcript.length).toBeGreaterThan(3_500);
    expect(transcript).toMatch(/\n\[… \d+ characters of the transcript omitted …\]\n/);
    // Cut at line ends: every kept line is whole.
    for (const line of transcript.split('\n').filter((l) => !l.startsWith('[…'))) {
      expect(line).toMatch(/^(Max|Jana): Satz Nummer \d+ mit etwas Inhalt\.$/);
    }
  });
});
