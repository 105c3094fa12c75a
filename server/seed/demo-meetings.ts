// Demo meetings used to seed a fresh database with realistic sample data. The meetings themselves
// are in demo-meetings.json (plain data, edited as text); this module gives them their type.
// Timestamps are in seconds from the start of each recording.

import data from './demo-meetings.json' with { type: 'json' };

export type DemoSegment = { speaker: string; content: string; start_time: number; end_time: number };
export type DemoSummary = {
  context: string | null;
  decisions: string[];
  action_items: { task: string; owner: string | null; deadline: string | null }[];
  participants: string[];
  next_step: string | null;
  budget_mentioned: string | null;
  sentiment: string | null; // e.g. "positive", "neutral", "mixed", "negative"
};
export type DemoMeeting = {
  title: string | null;
  platform: 'meet' | 'zoom' | 'teams' | 'phone' | 'microphone';
  language: string; // BCP-47-ish: mostly "en", one "de", one "fr"
  days_ago: number; // how long before "now" the meeting started (fractional)
  duration_seconds: number; // last segment end_time, rounded
  segments: DemoSegment[];
  summary: DemoSummary | null; // null = summary not generated yet
  summary_text?: string; // optional plain-text summary
};

// JSON gives `platform` as any string; every other field is checked against the type here (a
// missing field or a string for a number does not compile), and a platform outside the list is
// refused by the database's check when the seed stores the meeting.
const checked: (Omit<DemoMeeting, 'platform'> & { platform: string })[] = data;
export const demoMeetings = checked as DemoMeeting[];
