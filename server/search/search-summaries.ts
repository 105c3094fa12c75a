import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client';
import { meetings } from '../db/schema';
import type { Services } from '../services';
import { noteColumns, withTranscripts } from '../notes/load-notes';
import type { NoteRecord } from '../notes/note-record';
import { inArray } from 'drizzle-orm';
import { embedQuery } from './embed-checked';
import { meetingConditions, type SearchFilters } from '../notes/note-filters';
import { columnDimensions, toVectorLiteral, vectorSearch } from './vector-search';
import { fullTextMatch, hasWords, rankBlended, SUMMARY_WORDS } from './text-search';

/**
 * Form B search (docs/rules.md#search): the query against the account's summary embeddings and,
 * as for passages, their words (a summary holding every word of the query ranks higher); notes
 * without a summary are not matched. Full notes, best first. Only summaries embedded by the
 * configured model are compared, as in searchPassages.
 */
export async function searchSummaries(
  db: Db,
  services: Pick<Services, 'embedder' | 'exactSearchMaxRows'>,
  accountId: string,
  q: string,
  limit: number,
  filters: SearchFilters = {},
): Promise<NoteRecord[]> {
  if ((await columnDimensions(db, 'meetings', 'summary_embedding')) !== services.embedder.dimensions)
    return [];
  const literal = toVectorLiteral(await embedQuery(services.embedder, q));
  const from = sql`from meetings m where m.account_id = ${accountId} and m.transcribed_at is not null
              and m.summary_embedding is not null and m.summary_embedding_model = ${services.embedder.model}
              ${meetingConditions(filters)}${
                filters.speaker
                  ? sql` and exists (select 1 from transcript_segments s where s.meeting_id = m.id
                           and lower(s.speaker) = lower(${filters.speaker}))`
                  : sql``
              }`;
  const select = sql`m.id, m.summary_embedding <=> ${literal}::vector as distance`;
  // The `limit` nearest summaries and as many holding every word of the query, ranked together
  // as passages are (searchPassages).
  const byMeaning = await vectorSearch<{ id: string; distance: number }>(db, {
    select,
    from,
    distance: sql`m.summary_embedding <=> ${literal}::vector`,
    limit,
    exactMaxRows: services.exactSearchMaxRows,
  });
  const fullText = hasWords(q) ? fullTextMatch(q, SUMMARY_WORDS) : null;
  const byWords = fullText
    ? await queryRows<{ id: string; distance: number; rank: number }>(
        db,
        sql`select ${select}, ${fullText.rank} as rank ${from} and ${fullText.matches} order by rank desc, m.id limit ${limit}`,
      )
    : [];
  const ranked = await rankBlended(
    db,
    q,
    { byMeaning, byWords },
    { of: sql`from meetings m where m.account_id = ${accountId}`, id: sql`m.id`, words: SUMMARY_WORDS },
    limit,
  );
  if (ranked.length === 0) return [];
  const rows = await db
    .select(noteColumns)
    .from(meetings)
    .where(
      inArray(
        meetings.id,
        ranked.map((r) => r.id),
      ),
    );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return withTranscripts(
    db,
    ranked.map((r) => byId.get(r.id)).filter((r): r is NonNullable<typeof r> => !!r),
  );
}
