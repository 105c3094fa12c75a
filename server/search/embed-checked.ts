import type { EmbedOptions, EmbeddingProvider } from '../embeddings/provider';
import { SemanticModelLoadError } from '../embeddings/semantic-embedder';
import { AppError } from '../errors';
import { log } from '../log';
import { withSpan } from '../telemetry/tracing';

// EmbeddingProvider.embed promises one vector per text, in order. These wrappers check it, so a
// provider that breaks the promise fails here with a clear message instead of leaving a missing
// vector to be stored or compared further on.

/** The provider's call in a span: which provider and model, how many texts (never the texts). */
function embedTraced(embedder: EmbeddingProvider, texts: string[], opts?: EmbedOptions): Promise<number[][]> {
  return withSpan(
    'embed',
    {
      'embedding.provider': embedder.provider ?? 'custom',
      'embedding.model': embedder.model,
      'embedding.texts': texts.length,
      'embedding.urgent': opts?.urgent === true,
    },
    () => embedder.embed(texts, opts),
  );
}

function contractError(embedder: EmbeddingProvider, got: number, expected: number): Error {
  return new Error(
    `The embedder ${embedder.model} returned ${got} vector${got === 1 ? '' : 's'} for ${expected} text${expected === 1 ? '' : 's'}`,
  );
}

/** Each item with the vector of its text (`textOf`), in the order given. */
export async function embedEach<T>(
  embedder: EmbeddingProvider,
  items: readonly T[],
  textOf: (item: T) => string,
  opts?: EmbedOptions,
): Promise<[T, number[]][]> {
  const vectors = await embedTraced(embedder, items.map(textOf), opts);
  if (vectors.length !== items.length) throw contractError(embedder, vectors.length, items.length);
  return items.map((item, i) => {
    const vector = vectors[i];
    if (!vector) throw contractError(embedder, i, items.length);
    return [item, vector];
  });
}

/** The vector of one text. */
export async function embedOne(
  embedder: EmbeddingProvider,
  text: string,
  opts?: EmbedOptions,
): Promise<number[]> {
  const vectors = await embedTraced(embedder, [text], opts);
  const [vector] = vectors;
  if (vectors.length !== 1 || !vector) throw contractError(embedder, vectors.length, 1);
  return vector;
}

/**
 * The vector of a search's query, ahead of background work. A model that cannot be loaded (its
 * files missing from the deployment) makes search unavailable, a 503 that clients retry, not a
 * fault of the request: the server also said so at start (server/runtime/start-server.ts).
 */
export async function embedQuery(embedder: EmbeddingProvider, q: string): Promise<number[]> {
  try {
    return await embedOne(embedder, q, { urgent: true });
  } catch (err) {
    if (!(err instanceof SemanticModelLoadError)) throw err;
    log.warn('search unavailable: the semantic model cannot be loaded', { err });
    throw new AppError(
      'service_unavailable',
      'Search is unavailable for the moment: the service cannot load its language model; retry later',
    );
  }
}
