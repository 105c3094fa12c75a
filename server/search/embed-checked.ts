import type { EmbedOptions, EmbeddingProvider } from '../embeddings/provider';

// EmbeddingProvider.embed promises one vector per text, in order. These wrappers check it, so a
// provider that breaks the promise fails here with a clear message instead of leaving a missing
// vector to be stored or compared further on.

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
  const vectors = await embedder.embed(items.map(textOf), opts);
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
  const vectors = await embedder.embed([text], opts);
  const [vector] = vectors;
  if (vectors.length !== 1 || !vector) throw contractError(embedder, vectors.length, 1);
  return vector;
}
