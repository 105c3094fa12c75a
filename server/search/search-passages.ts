import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client';
import type { Services } from '../services';
import { passageText } from './make-passages';
import { makeSnippet } from './make-snippet';
import { toVectorLiteral, vectorSearch } from './vector-search';

export interface PassageHit {
  noteId: string;
  title: string | null;
  snippet: string;
  score: number;
  startTime: number;
}

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/**
 * Form A search (SPEC 2.5, 4.4; D7): the account's passages ranked by cosine similarity to the
 * query, several per note if they rank so. Each hit reports the start of the segment in its
 * passage that best matches the query by the same embedding, and a snippet around it.
 */
export async function searchPassages(
  db: Db,
  services: Pick<Services, 'embedder' | 'exactSearchMaxRows'>,
  accountId: string,
  q: string,
  limit: number,
): Promise<PassageHit[]> {
  const [queryVector] = await services.embedder.embed([q]);
  const literal = toVectorLiteral(queryVector!);
  const rows = await vectorSearch<{
    id: string;
    meeting_id: string;
    title: string | null;
    first_sequence: number;
    last_sequence: number;
    distance: number;
  }>(db, {
    select: sql`p.id, p.meeting_id, m.title, p.first_sequence, p.last_sequence, p.embedding <=> ${literal}::vector as distance`,
    from: sql`from passages p join meetings m on m.id = p.meeting_id where p.account_id = ${accountId} and p.embedding is not null`,
    distance: sql`p.embedding <=> ${literal}::vector`,
    limit,
    exactMaxRows: services.exactSearchMaxRows,
  });
  if (rows.length === 0) return [];

  // The hits' segments, in one query.
  const ranges = rows.map((r) => sql`(meeting_id = ${r.meeting_id} and sequence between ${r.first_sequence} and ${r.last_sequence})`);
  const segments = await queryRows<{ meeting_id: string; sequence: number; content: string; start_time: number }>(
    db,
    sql`select meeting_id, sequence, content, start_time from transcript_segments where ${sql.join(ranges, sql` or `)} order by meeting_id, sequence`,
  );
  const hitSegments = rows.map((r) =>
    segments.filter((s) => s.meeting_id === r.meeting_id && s.sequence >= r.first_sequence && s.sequence <= r.last_sequence),
  );
  const segmentVectors = await services.embedder.embed(hitSegments.flat().map((s) => s.content));

  let offset = 0;
  return rows.map((row, i) => {
    const own = hitSegments[i]!;
    const vectors = segmentVectors.slice(offset, (offset += own.length));
    let best = 0;
    vectors.forEach((v, j) => {
      if (dot(v, queryVector!) > dot(vectors[best]!, queryVector!)) best = j;
    });
    const { text, spans } = passageText(own);
    const span = spans.find((s) => s.segment === own[best]) ?? spans[0];
    return {
      noteId: row.meeting_id,
      title: row.title,
      snippet: makeSnippet(text, span ?? { start: 0, end: text.length }, q),
      score: 1 - Number(row.distance),
      startTime: Number(own[best]?.start_time ?? 0),
    };
  });
}
