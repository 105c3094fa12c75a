// The configured embedder (EMBEDDINGS_PROVIDER, EMBEDDINGS_DIMENSIONS…) as a module for the semantic
// retrieval scorer of issue 13, so a development set is scored with exactly what the service uses:
//
//   EMBEDDINGS_PROVIDER=semantic EMBEDDINGS_DIMENSIONS=768 \
//     node --import tsx ../shared/semantic/evaluate.mjs ../shared/semantic/dev-set.json scripts/eval-embedder.ts
import { getEnv } from '../server/env';
import { createServices } from '../server/services';

const { embedder } = createServices(getEnv());

export default function embed(texts: string[]): Promise<number[][]> {
  return embedder.embed(texts);
}
