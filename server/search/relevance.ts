import { LOCAL_MODEL } from '../embeddings/local-embedder';
import { USE_LITE_MODEL } from '../embeddings/semantic-embedder';

/**
 * How the settings app presents a hit: `strong` first, `weak` folded under "weaker
 * matches", and when no hit is at least `close` it says there are no close matches. The API
 * is not affected: it answers the top `limit` by similarity, whatever their scores.
 */
export type Relevance = 'strong' | 'weak' | 'faint';

interface Bands {
  /** Below this, a hit is not a close match (junk queries stay under it). */
  close: number;
  /** From this on, a hit is a strong match. */
  strong: number;
}

// Cosines, calibrated on a development set of paraphrase, keyword and junk queries per embedder:
// `close` sits above what junk queries ("xyzzyplugh") score and `strong` near what the expected
// passage of a paraphrase query scores (docs/performance.md#search-quality has the figures).
// Another model (a remote one) has no calibration: every hit counts as strong.
const BANDS: { matches(model: string): boolean; bands: Bands }[] = [
  { matches: (m) => m.startsWith(USE_LITE_MODEL), bands: { close: 0.3, strong: 0.38 } },
  { matches: (m) => m === LOCAL_MODEL, bands: { close: 0.12, strong: 0.2 } },
];

export function relevanceOf(model: string, score: number): Relevance {
  const bands = BANDS.find((b) => b.matches(model))?.bands;
  if (!bands) return 'strong';
  return score >= bands.strong ? 'strong' : score >= bands.close ? 'weak' : 'faint';
}
