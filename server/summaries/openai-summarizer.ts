import { STATUS_CODES } from 'node:http';
import type { OpenAI } from 'openai';
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { SummarySchema, type Summary } from '../notes/summary';
import {
  abortable,
  apiErrorOf,
  connectionDetail,
  createOpenAIClient,
  endpointUrl,
  isRetryable,
  isTimeout,
  jsonBody,
  excerpt,
  serverMessage,
} from '../openai-client';
import type { Summarizer, SummarizerInput } from './summarizer';

// Summaries by a language model behind any OpenAI-compatible chat completions endpoint,
// with structured output into the Summary schema, through the official client (see
// ../openai-client.ts for its retries). Configuration comes from the caller (the env module reads
// LLM_BASE_URL, LLM_API_KEY and LLM_MODEL); nothing here reads process.env.

export interface OpenAISummarizerOptions {
  /** e.g. https://api.openai.com/v1; requests go to `${baseUrl}/chat/completions` (LLM_BASE_URL). */
  baseUrl: string;
  /** Sent as a bearer token when set; local servers often need none (LLM_API_KEY). */
  apiKey?: string;
  /** e.g. gpt-4o-mini (LLM_MODEL). */
  model: string;
  /** Per HTTP attempt, until the response headers arrive (default 60 000). */
  timeoutMs?: number;
  /** Further attempts after a 408, 409, 429, 5xx, a timeout or a network error (default 3). */
  maxRetries?: number;
  fetch?: typeof globalThis.fetch;
  /** The transcript is cut in the middle beyond this many characters, keeping its beginning and end. */
  maxTranscriptChars?: number;
  /** Upper bound of a wait a server asks for with Retry-After (default 60 000). */
  maxRetryDelayMs?: number;
  /** Sent only when set: some reasoning models reject any temperature. */
  temperature?: number;
}

/** A failed summary request. `retryable` says whether trying again later may help. */
export class SummarizerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SummarizerError';
  }
}

const SYSTEM_PROMPT = `You summarize meeting transcripts. Reply with one JSON object that matches the given schema, and nothing else.
Fields:
- context: one or two sentences on what the meeting was about, or null if the transcript is empty.
- decisions: the decisions that were actually made, one short sentence each; [] if none.
- action_items: concrete tasks someone agreed to do. task is an imperative phrase ("Send the proposal to Acme"); owner is the participant's name as it appears in the transcript, or null if nobody took it; deadline is the time phrase as said ("by Friday", "next Tuesday"), or null.
- participants: the distinct speakers, in order of first appearance.
- next_step: the single most important next step, or null.
- budget_mentioned: the main money amount or budget mentioned, as said (e.g. "$40k"), or null.
- sentiment: one of "positive", "neutral", "negative", "mixed", or null if the transcript is empty.
Write in the language of the meeting. Use only what the transcript says; do not invent names, dates or amounts.`;

const FIELD_DESCRIPTIONS: Record<string, string> = {
  context: 'One or two sentences on what the meeting was about.',
  decisions: 'Decisions that were made, one short sentence each.',
  action_items: 'Tasks someone agreed to do.',
  participants: 'Distinct speakers in order of first appearance.',
  next_step: 'The most important next step.',
  budget_mentioned: 'The main money amount or budget mentioned, as said, e.g. "$40k".',
  sentiment: 'One of "positive", "neutral", "negative", "mixed".',
};

/**
 * The Summary schema as strict structured output accepts it: the root is the object itself (no
 * $ref, which the fresh registry avoids by leaving out the schema's id), every field required,
 * no additional properties.
 */
export function summaryJsonSchema(): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(SummarySchema, {
    metadata: z.registry<Record<string, unknown>>(),
  }) as Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
  for (const [name, description] of Object.entries(FIELD_DESCRIPTIONS)) {
    const property = schema.properties[name];
    if (property) property.description = description;
  }
  return schema;
}

const DEFAULT_MAX_TRANSCRIPT_CHARS = 48_000;

export class OpenAISummarizer implements Summarizer {
  readonly name: string;
  /** Where the requests go, for messages. */
  private readonly url: string;
  private readonly model: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxTranscriptChars: number;
  private readonly temperature: number | undefined;
  private readonly schema = summaryJsonSchema();
  private readonly client: () => Promise<OpenAI>;

  constructor(options: OpenAISummarizerOptions) {
    const baseUrl = typeof options?.baseUrl === 'string' ? options.baseUrl.trim() : '';
    if (!baseUrl) {
      throw new Error(
        'LLM_BASE_URL is required for LLM summaries: the base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1',
      );
    }
    if (!URL.canParse(baseUrl)) {
      throw new Error(
        `LLM_BASE_URL is not a valid URL: ${JSON.stringify(baseUrl)} (expected e.g. https://api.openai.com/v1)`,
      );
    }
    const parsed = new URL(baseUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new Error(`LLM_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
    }
    const model = typeof options.model === 'string' ? options.model.trim() : '';
    if (!model) throw new Error('LLM_MODEL is required for LLM summaries: the model name, e.g. gpt-4o-mini');

    const timeoutMs = options.timeoutMs ?? 60_000;
    const maxRetries = options.maxRetries ?? 3;
    const maxTranscriptChars = options.maxTranscriptChars ?? DEFAULT_MAX_TRANSCRIPT_CHARS;
    if (!(timeoutMs > 0))
      throw new Error(`OpenAISummarizer: timeoutMs must be a positive number, got ${timeoutMs}`);
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new Error(`OpenAISummarizer: maxRetries must be a non-negative integer, got ${maxRetries}`);
    }
    if (!Number.isInteger(maxTranscriptChars) || maxTranscriptChars < 1000) {
      throw new Error(
        `OpenAISummarizer: maxTranscriptChars must be an integer of at least 1000, got ${maxTranscriptChars}`,
      );
    }

    this.url = endpointUrl(parsed, '/chat/completions');
    this.model = model;
    this.name = `openai:${model}`;
    this.timeoutMs = timeoutMs;
    this.maxRetries = maxRetries;
    this.maxTranscriptChars = maxTranscriptChars;
    this.temperature = options.temperature;
    this.client = createOpenAIClient({
      baseUrl: parsed,
      apiKey: options.apiKey?.trim() || undefined,
      timeoutMs,
      maxRetries,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
      fetch: options.fetch,
    });
  }

  async summarize(input: SummarizerInput, opts?: { signal?: AbortSignal }): Promise<Summary> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: renderUserMessage(input, this.maxTranscriptChars) },
    ];
    let reply = await this.complete(messages, opts?.signal);
    let outcome = parseSummary(reply);
    if (outcome.ok) return outcome.summary;

    // One corrective round: show the model its reply and what was wrong with it.
    messages.push(
      { role: 'assistant', content: reply.content ?? '' },
      {
        role: 'user',
        content: `That reply was not usable: ${outcome.problem}. Reply again with only a JSON object that matches the schema exactly: all seven fields, nulls where nothing applies, no other text.`,
      },
    );
    reply = await this.complete(messages, opts?.signal);
    outcome = parseSummary(reply);
    if (outcome.ok) return outcome.summary;
    throw new SummarizerError(
      `LLM ${this.model} returned no valid summary after a corrective retry: ${outcome.problem}`,
      false,
    );
  }

  /** One chat completion; the client retries it (see ../openai-client.ts). */
  private async complete(
    messages: ChatCompletionMessageParam[],
    signal: AbortSignal | undefined,
  ): Promise<ChatCompletion.Choice['message'] & { finishReason: string | null }> {
    signal?.throwIfAborted();
    let completion: unknown;
    try {
      const request = (await this.client()).chat.completions.create(
        {
          model: this.model,
          messages,
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'summary', strict: true, schema: this.schema },
          },
          ...(this.temperature !== undefined && { temperature: this.temperature }),
        },
        { signal },
      );
      completion = jsonBody(await abortable(request, signal));
    } catch (err) {
      throw this.failure(err, signal);
    }
    const choice = (completion as Partial<ChatCompletion> | null)?.choices?.[0];
    if (!choice?.message || typeof choice.message !== 'object') {
      throw new SummarizerError(
        `LLM ${this.model} answered without choices[0].message: ${excerpt(JSON.stringify(completion) ?? '')}`,
        false,
      );
    }
    return { ...choice.message, finishReason: choice.finish_reason ?? null };
  }

  private failure(err: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason;
    if (err instanceof SyntaxError) {
      return new SummarizerError(
        `LLM ${this.model} answered with a body that is not JSON: ${err.message}`,
        false,
        undefined,
        { cause: err },
      );
    }
    const apiError = apiErrorOf(err);
    if (!apiError) return err;
    const retryable = isRetryable(apiError);
    let message = isTimeout(apiError)
      ? `LLM request to ${this.url} timed out after ${this.timeoutMs} ms`
      : apiError.status === undefined
        ? `LLM request to ${this.url} failed: network error (${connectionDetail(apiError)})`
        : `LLM request to ${this.url} failed with ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`.trimEnd() +
          `: ${serverMessage(apiError)}`;
    if (retryable) {
      const attempts = this.maxRetries + 1;
      message += ` (gave up after ${attempts} attempt${attempts > 1 ? 's' : ''})`;
    }
    return new SummarizerError(message, retryable, apiError.status, { cause: apiError });
  }
}

type ParseOutcome = { ok: true; summary: Summary } | { ok: false; problem: string };

function parseSummary(reply: {
  content?: string | null;
  refusal?: string | null;
  finishReason: string | null;
}): ParseOutcome {
  if (reply.refusal) return { ok: false, problem: `the model refused: ${excerpt(reply.refusal)}` };
  if (typeof reply.content !== 'string' || !reply.content.trim())
    return { ok: false, problem: 'the reply was empty' };
  const truncated = reply.finishReason === 'length' ? ' (the reply was cut off at the token limit)' : '';
  let json: unknown;
  try {
    json = JSON.parse(extractJson(reply.content));
  } catch (err) {
    return { ok: false, problem: `the reply was not valid JSON${truncated}: ${(err as Error).message}` };
  }
  const result = SummarySchema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return { ok: false, problem: `the JSON did not match the Summary schema${truncated}: ${issues}` };
  }
  return { ok: true, summary: result.data };
}

/** Servers that ignore response_format sometimes wrap the object in a Markdown fence or prose. */
function extractJson(content: string): string {
  const trimmed = content.trim();
  if (trimmed.startsWith('{')) return trimmed;
  const fenced = trimmed.match(/```(?:json)?\s*([\s\S]*?)```/i);
  if (fenced?.[1]) return fenced[1].trim();
  const first = trimmed.indexOf('{');
  const last = trimmed.lastIndexOf('}');
  return first >= 0 && last > first ? trimmed.slice(first, last + 1) : trimmed;
}

/** The user message: title, language and "speaker: text" lines, cut in the middle if too long. */
export function renderUserMessage(
  input: SummarizerInput,
  maxChars: number = DEFAULT_MAX_TRANSCRIPT_CHARS,
): string {
  const lines = input.segments
    .map((s) => `${s.speaker.trim() || 'Unknown'}: ${s.content.replace(/\s+/g, ' ').trim()}`)
    .filter((line) => !line.endsWith(': '));
  const header = [
    `Title: ${input.title?.trim() || '(none)'}`,
    `Language: ${input.language || 'unknown'}`,
    '',
    'Transcript:',
  ].join('\n');
  const transcript = lines.length ? truncateMiddle(lines.join('\n'), maxChars) : '(empty transcript)';
  return `${header}\n${transcript}`;
}

/**
 * Keeps the first and last halves of the budget, cut at line ends where possible: the opening
 * says what the meeting is about and the end holds decisions and next steps.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = (omitted: number) => `\n[… ${omitted} characters of the transcript omitted …]\n`;
  const budget = maxChars - marker(text.length).length;
  const half = Math.floor(budget / 2);
  let head = text.slice(0, half);
  const headBreak = head.lastIndexOf('\n');
  if (headBreak > half * 0.8) head = head.slice(0, headBreak);
  let tail = text.slice(text.length - half);
  const tailBreak = tail.indexOf('\n');
  if (tailBreak >= 0 && tailBreak < half * 0.2) tail = tail.slice(tailBreak + 1);
  return `${head}${marker(text.length - head.length - tail.length)}${tail}`;
}
