import { LOCAL_MODEL } from '../embeddings/local-embedder';
import { USE_LITE_MODEL } from '../embeddings/semantic-embedder';

/**
 * How the settings app presents a hit (issue 13): `strong` first, `weak` folded under "weaker
 * matches", and when no hit is at least `close` it says there are no close matches. The API
 * (D7) is not affected: it answers the top `limit` by similarity, whatever their scores.
 */
export type Relevance = 'strong' | 'weak' | 'faint';

interface Bands {
  /** Below this, a hit is not a close match (junk queries stay under it). */
  close: number;
  /** From this on, a hit is a strong match. */
  strong: number;
}

// Cosines, calibrated on ../shared/semantic/dev-set.json (issue 13, step 1) for USE-lite + 0.15
// lexical: the expected passage of a paraphrase query scores 0.38 at the first quartile and 0.43
// at the median, of a keyword query 0.44 at the least; the best passage for junk queries
// ("xyzzyplugh", "asdf qwer zxcv", "banana bread recipe with walnuts", "who won the football
// world cup") 0.14–0.25. The word-matching embedder scores shared words 0.2–0.6 and gibberish
// 0.03–0.09. Another model (a remote one) has no calibration: every hit counts as strong.
const BANDS: { matches(model: string): boolean; bands: Bands }[] = [
  { matches: (m) => m.startsWith(USE_LITE_MODEL), bands: { close: 0.3, strong: 0.38 } },
  { matches: (m) => m === LOCAL_MODEL, bands: { close: 0.12, strong: 0.2 } },
];

export function relevanceOf(model: string, score: number): Relevance {
  const bands = BANDS.find((b) => b.matches(model))?.bands;
  if (!bands) return 'strong';
  return score >= bands.strong ? 'strong' : score >= bands.close ? 'weak' : 'faint';
}
