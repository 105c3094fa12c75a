// The configured embedder (EMBEDDINGS_PROVIDER, EMBEDDINGS_DIMENSIONS…) as an ES module whose
// default export is `async (texts: string[]) => number[][]`, for a retrieval scorer that loads an
// embedder module, so a development set is scored with exactly what the service uses:
//
//   EMBEDDINGS_PROVIDER=semantic EMBEDDINGS_DIMENSIONS=768 \
//     node --import tsx <scorer.mjs> <set.json> scripts/eval-embedder.ts
import { getEnv } from '../server/env';
import { createServices } from '../server/services';

const { embedder } = createServices(getEnv());

export default function embed(texts: string[]): Promise<number[][]> {
  return embedder.embed(texts);
}
