import { randomBytes } from 'node:crypto';
import { createAccountWithKey, findAccountByEmail } from '../accounts/accounts';
import type { Db } from '../db/client';
import { embedsInline, type Services } from '../services';
import { cancelJobs } from '../jobs/jobs';
import type { Summary } from '../notes/summary';
import { assertDimensions } from '../search/embedding-dimensions';
import { indexStoredTranscript, indexSummary } from '../search/index-meeting';
import { stopUseLiteThreads } from '../embeddings/use-lite-worker';
import { createMeeting } from '../meetings/create-meeting';
import { storeSummary } from '../meetings/store-summary';
import { storeTranscript } from '../meetings/store-transcript';
import { ExtractiveSummarizer } from '../summaries/extractive-summarizer';
import { demoMeetings } from './demo-meetings';

export const DEMO_EMAIL = 'demo@meeting-notes.local';

export interface SeedResult {
  account_id: string;
  email: string;
  password: string;
  key_id: string;
  api_key: string;
  form: 'A';
  notes: number;
}

/**
 * A demo account with early access, a password login, a Form A key and a dozen realistic
 * meetings on every platform, entered through the same services the recorder API uses.
 */
export async function seedDemo(
  db: Db,
  services: Services,
  opts: { email?: string; onProgress?(done: number, total: number): void } = {},
): Promise<SeedResult> {
  const email = opts.email ?? DEMO_EMAIL;
  if (await findAccountByEmail(db, email))
    throw new Error(`The demo account ${email} exists already; nothing was seeded`);
  // A fresh database's vector columns follow the configured embedder (nothing stored yet to lose).
  await assertDimensions(db, services.embedder.dimensions);
  const password = randomBytes(12).toString('base64url');
  const { account, key, plaintext } = await createAccountWithKey(
    db,
    { email, name: 'Demo', password, plan: 'pro', earlyAccess: true },
    { form: 'A', name: 'Demo key' },
  );

  const extractive = new ExtractiveSummarizer();
  const now = Date.now();
  // Oldest first, so created_at follows the order in which the meetings happened.
  const meetings = [...demoMeetings].sort((a, b) => b.days_ago - a.days_ago);
  for (const [i, m] of meetings.entries()) {
    const startedAt = new Date(now - Math.round(m.days_ago * 86_400_000));
    const { id } = await createMeeting(db, services, account.id, {
      title: m.title,
      platform: m.platform,
      language: m.language,
      startedAt,
      createdAt: startedAt,
    });
    await storeTranscript(db, services, account.id, id, {
      endedAt: new Date(startedAt.getTime() + m.duration_seconds * 1000),
      durationSeconds: m.duration_seconds,
      segments: m.segments.map((s) => ({
        speaker: s.speaker,
        content: s.content,
        startTime: s.start_time,
        endTime: s.end_time,
      })),
      generateSummary: false,
    });
    // Every demo note has a summary. The two written without one get the
    // extractive summarizer's, made here (local, no model call), rather than a summary that the
    // seed turned off and the page would call "not generated yet" forever.
    const summary =
      (m.summary as Summary | null) ??
      (await extractive.summarize({
        title: m.title,
        language: m.language,
        segments: m.segments.map((s) => ({
          speaker: s.speaker,
          content: s.content,
          startTime: s.start_time,
        })),
      }));
    const summaryText = m.summary_text ?? null;
    await storeSummary(db, services, account.id, id, { summary, text: summaryText });
    if (!embedsInline(services.embedder)) {
      // The semantic model embeds in the background jobs; the demo is embedded here instead, so it
      // is searchable the moment the server answers (about a second per meeting).
      await indexStoredTranscript(db, services.embedder, { id, accountId: account.id });
      await indexSummary(db, services.embedder, id, summary, summaryText);
      await cancelJobs(db, id, 'embed_transcript');
      await cancelJobs(db, id, 'embed_summary');
    }
    opts.onProgress?.(i + 1, meetings.length);
  }
  await stopUseLiteThreads();
  return {
    account_id: account.id,
    email,
    password,
    key_id: key.id,
    api_key: plaintext,
    form: 'A',
    notes: meetings.length,
  };
}
