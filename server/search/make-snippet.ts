import { tokenize } from '../text/tokenize';

export const SNIPPET_MAX_CHARS = 300;
const ELLIPSIS = '…';

/**
 * At most 300 characters of the passage, cut on word boundaries, around the best-matching
 * part: the window is centred on the first query word found in the best segment (or on that
 * segment when no word of the query occurs, as with a semantic match).
 */
/** `passage` as passageText() builds it; `focus` the span of the best segment in it. */
export function makeSnippet(passage: string, focus: { start: number; end: number }, query: string): string {
  const text = passage;
  if (text.length <= SNIPPET_MAX_CHARS) return text;
  const queryStems = new Set(tokenize(query).map((t) => t.token));
  const region = text.slice(focus.start, focus.end);
  const hit = tokenize(region).find((t) => queryStems.has(t.token));
  const centre =
    focus.start + (hit ? (hit.start + hit.end) / 2 : Math.min(region.length, SNIPPET_MAX_CHARS) / 2);

  const budget = SNIPPET_MAX_CHARS - 2 * ELLIPSIS.length;
  let start = Math.max(0, Math.round(centre - budget / 2));
  let end = Math.min(text.length, start + budget);
  start = Math.max(0, end - budget);
  // Move inwards to word boundaries.
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space === -1 || space >= end ? start : space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    end = space <= start ? end : space;
  }
  return `${start > 0 ? ELLIPSIS : ''}${text.slice(start, end).trim()}${end < text.length ? ELLIPSIS : ''}`;
}
