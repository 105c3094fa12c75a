import fs from 'node:fs';
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

  it('a query that finds every thread encoding goes to a query thread of its own, without waiting for their batches', async () => {
    await stopUseLiteThreads();
    const encoder = await loadUseLiteInWorker(undefined, 1);
    // On an idle pool a query runs on the pool's thread: a quiet server holds one model.
    await encoder.encode(['budget review'], { urgent: true });
    expect(modelThreadsRunning()).toBe(1);
    const order: string[] = [];
    // One long batch (seconds of work) keeps the only pool thread busy.
    const long = Array.from(
      { length: 500 },
      (_, i) => `item ${i} of the quarterly budget and hiring plan`,
    ).join(' ');
    const background = encoder.encode([long]).then(() => order.push('background'));
    const query = encoder.encode(['budget review'], { urgent: true }).then(() => order.push('query'));
    await Promise.all([background, query]);
    expect(order).toEqual(['query', 'background']);
    expect(modelThreadsRunning()).toBe(2);
    await stopUseLiteThreads();
  });

  it('the pool runs at a lower priority than the process (nice 10), so requests and queries get the cores first', async () => {
    await stopUseLiteThreads();
    const nice = () =>
      fs
        .readdirSync('/proc/self/task')
        .map((tid) =>
          Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]),
        );
    expect(nice().filter((n) => n === 10)).toHaveLength(0);
    await loadUseLiteInWorker(undefined, 1);
    expect(nice().filter((n) => n === 10)).toHaveLength(1);
    await stopUseLiteThreads();
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
