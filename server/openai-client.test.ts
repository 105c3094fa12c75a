import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './openai-client';

// The client's retries themselves are tested through the providers, against a local
// OpenAI-compatible server (server/embeddings/openai-embedder.test.ts, server/summaries/openai-summarizer.test.ts).

describe('retryAfterMs', () => {
  it.each([
    [{ 'retry-after': '2' }, 2_000],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, 5_000],
    [{ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, 0],
    [{ 'retry-after-ms': '250', 'retry-after': '1' }, 250],
    [{ 'retry-after-ms': 'soon', 'retry-after': '1' }, 1_000],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('parses %j', (headers, expected) => {
    expect(retryAfterMs(new Headers(headers), Date.parse('2026-01-01T00:00:00Z'))).toBe(expected);
  });
});
