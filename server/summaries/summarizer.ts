import type { Segment } from '../notes/note-record';
import type { Summary } from '../notes/summary';

export interface SummarizerInput {
  title: string | null;
  language: string;
  segments: Pick<Segment, 'speaker' | 'content' | 'startTime'>[];
}

/** Writes the Summary object for a transcript (docs/rules.md#summaries). */
export interface Summarizer {
  /** Which summarizer this is, e.g. "extractive" or "openai:gpt-4o-mini". */
  readonly name: string;
  summarize(input: SummarizerInput, opts?: { signal?: AbortSignal }): Promise<Summary>;
}
