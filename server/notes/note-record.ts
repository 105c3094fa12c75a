import type { Platform } from '../domain';
import type { Summary } from './summary';

// The form-neutral shape of a note: what services return and presenters write per form.

export interface Segment {
  sequence: number;
  speaker: string;
  content: string;
  startTime: number;
  endTime: number | null;
}

export interface NoteRecord {
  id: string;
  title: string | null;
  platform: Platform;
  language: string;
  startedAt: Date;
  endedAt: Date;
  durationSeconds: number;
  createdAt: Date;
  summary: Summary | null;
  summaryText: string | null;
  transcript: Segment[];
}

export interface NotePage {
  notes: NoteRecord[];
  hasMore: boolean;
}
