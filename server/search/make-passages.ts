import type { Segment } from '../notes/note-record';

export interface PassageDraft {
  position: number;
  text: string;
  firstSequence: number;
  lastSequence: number;
}

// A passage is a window of consecutive segments of roughly 300–800 characters. Each window
// starts with the last segment of the one before, so a sentence that straddles a border is
// whole in at least one passage.
export const MIN_PASSAGE_CHARS = 300;
export const MAX_PASSAGE_CHARS = 800;

const clean = (content: string) => content.replace(/\s+/g, ' ').trim();

/** A passage's text, and where each of its segments stands in it (for snippets). */
export function passageText<S extends Pick<Segment, 'content'>>(
  segments: S[],
): { text: string; spans: { segment: S; start: number; end: number }[] } {
  let text = '';
  const spans: { segment: S; start: number; end: number }[] = [];
  for (const segment of segments) {
    const part = clean(segment.content);
    if (!part) continue;
    if (text) text += ' ';
    spans.push({ segment, start: text.length, end: text.length + part.length });
    text += part;
  }
  return { text, spans };
}

export function makePassages(segments: Pick<Segment, 'sequence' | 'content'>[]): PassageDraft[] {
  const at = (i: number) => {
    const segment = segments[i];
    if (!segment) throw new RangeError(`makePassages: no segment at ${i} of ${segments.length}`);
    return segment;
  };
  const passages: PassageDraft[] = [];
  let start = 0;
  while (start < segments.length) {
    let end = start; // inclusive
    let length = at(start).content.length;
    // Grow while short of the minimum and the next segment still fits under the maximum.
    while (
      end + 1 < segments.length &&
      length < MIN_PASSAGE_CHARS &&
      length + 1 + at(end + 1).content.length <= MAX_PASSAGE_CHARS
    ) {
      end++;
      length += 1 + at(end).content.length;
    }
    passages.push({
      position: passages.length,
      text: passageText(segments.slice(start, end + 1)).text,
      firstSequence: at(start).sequence,
      lastSequence: at(end).sequence,
    });
    if (end + 1 >= segments.length) break;
    // Overlap by one segment, unless the window is that one segment (then move on).
    start = end > start ? end : end + 1;
  }
  return passages.filter((p) => p.text.length > 0);
}
