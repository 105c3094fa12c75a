import { describe, expect, it } from 'vitest';
import { parseEnv } from '../env';
import { createServices } from '../services';
import { loadUseLite, SemanticEmbedder } from './semantic-embedder';
import { loadUseLiteInWorker, modelThreadsRunning, stopUseLiteThreads } from './use-lite-worker';

// The service runs USE-lite on a worker thread so that encoding a meeting in the
// background does not hold the event loop that answers searches. Same model, same numbers.

const TEXTS = [
  'The Postgres failover took eleven minutes.',
  'She is also talking to rival employers.',
  '',
  'Le client veut une remise de dix pour cent sur le renouvellement.',
];

describe('USE-lite on a worker thread', () => {
  it('gives exactly the vectors of the model on the main thread, in order, also for texts sent at once', async () => {
    const onThread = new SemanticEmbedder({ dimensions: 768, load: loadUseLiteInWorker });
    const inline = new SemanticEmbedder({ dimensions: 768, load: loadUseLite });
    const expected = await inline.embed(TEXTS);
    expect(await onThread.embed(TEXTS)).toEqual(expected);
    // One at a time (and urgent ones among them) the batches differ, so only float rounding may.
    const alone = await Promise.all(TEXTS.map((t, i) => onThread.embed([t], { urgent: i % 2 === 0 })));
    for (const [i, [v]] of alone.entries()) {
      const want = expected[i]!;
      expect(Math.max(...v!.map((x, k) => Math.abs(x - want[k]!)))).toBeLessThan(1e-6);
    }
  });

  it('a query goes before waiting background batches on the model thread', async () => {
    const encoder = await loadUseLiteInWorker();
    const order: string[] = [];
    const background = Array.from({ length: 6 }, (_, i) =>
      encoder
        .encode([
          `background batch ${i}: the team reviewed the quarterly budget and the hiring plan in detail`,
        ])
        .then(() => order.push(`b${i}`)),
    );
    // Posted after all six background batches: it runs after the batch in progress, before the rest.
    const query = encoder.encode(['budget review'], { urgent: true }).then(() => order.push('q'));
    await Promise.all([...background, query]);
    expect(order.indexOf('q')).toBeLessThanOrEqual(1);
    expect(order.filter((x) => x !== 'q')).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
  });

  it("the service's default embedder is the semantic one on the worker thread", async () => {
    const { embedder } = createServices(parseEnv({}));
    expect(embedder).toBeInstanceOf(SemanticEmbedder);
    const [v] = await embedder.embed(['The Postgres failover took eleven minutes.']);
    expect(v).toEqual(
      (
        await new SemanticEmbedder({ dimensions: 768, load: loadUseLite }).embed([
          'The Postgres failover took eleven minutes.',
        ])
      )[0],
    );
  });

  it('a pool of two threads starts its second only when a batch finds the first busy, and gives the same vectors', async () => {
    await stopUseLiteThreads();
    const encoder = await loadUseLiteInWorker(undefined, 2);
    expect(modelThreadsRunning()).toBe(1);
    const one = await encoder.encode([TEXTS[0]!]);
    expect(modelThreadsRunning()).toBe(1); // a batch at a time keeps one model
    const texts = Array.from({ length: 6 }, (_, i) => `batch ${i}: the quarterly budget and the hiring plan`);
    const together = await Promise.all(texts.map((t) => encoder.encode([t])));
    expect(modelThreadsRunning()).toBe(2);
    const apart = [];
    for (const t of texts) apart.push(await encoder.encode([t]));
    for (const [i, [v]] of together.entries()) {
      const want = Array.from(apart[i]![0]!);
      expect(Math.max(...Array.from(v!, (x, k) => Math.abs(x - want[k]!)))).toBeLessThan(1e-6);
    }
    expect(Array.from(one[0]!)).toHaveLength(512);
    await stopUseLiteThreads();
  });
});
