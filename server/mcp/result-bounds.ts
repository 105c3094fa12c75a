// How much one MCP tool result may hold (docs/mcp.md#how-much-a-result-holds). A model reads a
// tool's result into its context, so every result is bounded: each text is cut to its own length
// and each list to its own count, and a transcript is read in pages that stop before the whole
// result would pass MAX_RESULT_CHARS.

/** The most characters of JSON a tool's structured result takes (its text content repeats it). */
export const MAX_RESULT_CHARS = 100_000;

export const BOUNDS = {
  /** A speaker's or an owner's name. */
  name: 200,
  /** A meeting's summary text in get_meeting. */
  summary: 4_000,
  /** A meeting's summary text in list_meetings. */
  summaryPreview: 500,
  /** A decision, an action item's task, the next step. */
  item: 500,
  /** An action item's deadline, as said. */
  deadline: 200,
  /** A transcript segment's text. */
  segment: 4_000,
  /** Decisions and action items of one meeting. */
  items: 30,
  /** Participants of one meeting. */
  participants: 50,
} as const;

/**
 * The text cut to `max` characters, an ellipsis marking the cut; `cut` is set when it was. A cut
 * never splits a surrogate pair.
 */
export function clip(text: string, max: number, cut?: { truncated: boolean }): string {
  if (text.length <= max) return text;
  if (cut) cut.truncated = true;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** The first `max` items; `cut` is set when there were more. */
export function firstItems<T>(items: readonly T[], max: number, cut?: { truncated: boolean }): T[] {
  if (items.length > max && cut) cut.truncated = true;
  return items.slice(0, max);
}

export const clipNullable = (text: string | null, max: number, cut?: { truncated: boolean }) =>
  text === null ? null : clip(text, max, cut);
