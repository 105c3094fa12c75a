import type { Platform } from '../../server/domain';

// Recording a meeting as the desktop recorder does, through the recorder API: the meeting, its
// transcript, and a summary when one is given. Free of any test runner: the vitest suite's test
// app (test-app.ts, whose requests are checked against the OpenAPI documents) and the end-to-end
// specs (plain fetch against their server) both record their notes with it.

export interface RecorderAnswer {
  status: number;
  text: string;
}

/** Sends one recorder call: `json` POSTed to `path` with the API key. */
export type RecorderPost = (path: string, key: string, json: unknown) => Promise<RecorderAnswer>;

export interface TranscriptSegment {
  speaker: string;
  content: string;
  start_time: number;
  end_time?: number | null;
}

export interface RecordNoteOptions {
  /** 'Weekly sync' when left out; null sends a meeting without a title. */
  title?: string | null;
  platform?: Platform;
  language?: string;
  started_at?: string;
  /** Two short lines of Ana and Ben when left out. */
  segments?: TranscriptSegment[];
  /** A summary stored after the transcript, as the recorder sends it. */
  summary?: unknown;
  /** The summary's text, sent beside `summary`. */
  summaryText?: string;
  /** false: the meeting is created and nothing else is sent. */
  transcribe?: boolean;
  /**
   * Sent as generate_summary with the transcript. False unless asked, so that no background
   * summary lands in what a test checks; the recorder itself queues one when it is left out.
   */
  generateSummary?: boolean;
  ended_at?: string;
  duration_seconds?: number;
}

export const DEFAULT_SEGMENTS: TranscriptSegment[] = [
  { speaker: 'Ana', content: 'Good morning, shall we start?', start_time: 0, end_time: 2.5 },
  { speaker: 'Ben', content: 'Yes, the release is on track for Friday.', start_time: 2.5, end_time: 6 },
];

/** Recorder calls with plain fetch against a running server (e.g. `npm start` in the end-to-end tests). */
export function postTo(baseUrl: string): RecorderPost {
  return async (path, key, json) => {
    const res = await fetch(baseUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    return { status: res.status, text: await res.text() };
  };
}

/**
 * Records a meeting and returns its id. `via` is a server's base URL or a function that sends the
 * calls. An answer other than the documented success (201, then 200) throws with the status and
 * body, so a test fails at the call that went wrong.
 */
export async function recordNote(
  via: string | RecorderPost,
  key: string,
  opts: RecordNoteOptions = {},
): Promise<string> {
  const post = typeof via === 'string' ? postTo(via) : via;
  const created = await post('/api/recorder/meetings', key, {
    title: opts.title === undefined ? 'Weekly sync' : opts.title,
    platform: opts.platform ?? 'zoom',
    ...(opts.language && { language: opts.language }),
    ...(opts.started_at && { started_at: opts.started_at }),
  });
  if (created.status !== 201) throw new Error(`create meeting: ${created.status} ${created.text}`);
  const id = (JSON.parse(created.text) as { id: string }).id;
  if (opts.transcribe === false) return id;
  const transcript = await post(`/api/recorder/meetings/${id}/transcript`, key, {
    segments: opts.segments ?? DEFAULT_SEGMENTS,
    ...(opts.ended_at && { ended_at: opts.ended_at }),
    ...(opts.duration_seconds !== undefined && { duration_seconds: opts.duration_seconds }),
    generate_summary: opts.generateSummary ?? false,
  });
  if (transcript.status !== 200) throw new Error(`store transcript: ${transcript.status} ${transcript.text}`);
  if (opts.summary) {
    const summary = await post(`/api/recorder/meetings/${id}/summary`, key, {
      summary: opts.summary,
      ...(opts.summaryText && { text: opts.summaryText }),
    });
    if (summary.status !== 200) throw new Error(`store summary: ${summary.status} ${summary.text}`);
  }
  return id;
}
