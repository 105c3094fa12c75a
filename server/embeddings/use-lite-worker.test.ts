import { describe, expect, it } from 'vitest';
import { parseEnv } from '../env';
import { createServices } from '../services';
import { loadUseLite, SemanticEmbedder } from './semantic-embedder';
import { loadUseLiteInWorker } from './use-lite-worker';

// Issue 13: the service runs USE-lite on a worker thread so that encoding a meeting in the
// background does not hold the event loop that answers searches. Same model, same numbers.

const TEXTS = [
  'The Postgres failover took eleven minutes.',
  'She is also talking to rival employers.',
  '',
  'Le client veut une remise de dix pour cent sur le renouvellement.',
];

describe('USE-lite on a worker thread (issue 13, D19)', () => {
  it('issue 13: gives exactly the vectors of the model on the main thread, in order, also for texts sent at once', async () => {
    const onThread = new SemanticEmbedder({ dimensions: 768, load: loadUseLiteInWorker });
    const inline = new SemanticEmbedder({ dimensions: 768, load: loadUseLite });
    const expected = await inline.embed(TEXTS);
    expect(await onThread.embed(TEXTS)).toEqual(expected);
    const alone = await Promise.all(TEXTS.map((t) => onThread.embed([t])));
    expect(alone.map(([v]) => v)).toEqual(expected);
  });

  it("issue 13: the service's default embedder is the semantic one on the worker thread", async () => {
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
});
