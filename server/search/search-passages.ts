import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client';
import type { Services } from '../services';
import { tokenize } from '../text/tokenize';
import { embedQuery } from './embed-checked';
import { readSegmentVectors } from './index-meeting';
import { passageText } from './make-passages';
import { makeSnippet } from './make-snippet';
import { relevanceOf, type Relevance } from './relevance';
import { meetingConditions, type SearchFilters, sameSpeaker } from '../notes/note-filters';
import { columnDimensions, toVectorLiteral, vectorSearch } from './vector-search';
import { fullTextMatch, hasWords, PASSAGE_WORDS, rankBlended } from './text-search';

export interface PassageHit {
  noteId: string;
  title: string | null;
  /** When the meeting began. */
  startedAt: Date;
  /** Who speaks at the moment. */
  speaker: string;
  snippet: string;
  score: number;
  startTime: number;
  /** The segment startTime belongs to: with noteId, the moment's identity (one hit per moment). */
  sequence: number;
  /** For the settings app's presentation only; the API leaves it out. */
  relevance: Relevance;
}

/** a[offset..offset+b.length) · b; the caller passes an `a` that holds that range. */
const dot = (a: ArrayLike<number>, b: readonly number[], offset = 0) => {
  if (a.length < offset + b.length)
    throw new RangeError(`dot: ${a.length} components, ${offset + b.length} needed`);
  let sum = 0;
  // In range by the check above: the defaults never apply.
  for (let i = 0; i < b.length; i++) sum += (a[offset + i] ?? 0) * (b[i] ?? 0);
  return sum;
};

/**
 * Form A search (docs/rules.md#search): the account's passages ranked by their similarity to the
 * query (cosine similarity of the embeddings, raised when the passage holds the query's words:
 * blendedScore), several per note if they rank so. Each hit reports the start of the segment in its
 * passage that best matches the query by the same embedding, and a snippet around it. Only
 * vectors of the configured model are compared: while `npm run reindex` is moving
 * the database to another model, passages not yet on it are not searched.
 *
 * One hit per moment: neighbouring passages share a segment, and when both rank
 * for that segment only the better one is kept. A segment belongs to at most two passages, so
 * 2 × limit candidates always leave `limit` distinct moments when the account has them.
 */
export async function searchPassages(
  db: Db,
  services: Pick<Services, 'embedder' | 'exactSearchMaxRows'>,
  accountId: string,
  q: string,
  limit: number,
  filters: SearchFilters = {},
): Promise<PassageHit[]> {
  const { embedder } = services;
  // With a speaker, a passage must hold a segment of theirs, and its moment is one of them.
  const bySpeaker = filters.speaker
    ? sql` and exists (select 1 from transcript_segments s where s.meeting_id = p.meeting_id
             and s.sequence between p.first_sequence and p.last_sequence and lower(s.speaker) = lower(${filters.speaker}))`
    : sql``;
  // Right after a reindex swapped in vectors of another length, a server still on the old
  // configuration has nothing it may compare (pgvector would refuse): no hits, not an error.
  if ((await columnDimensions(db, 'passages', 'embedding')) !== embedder.dimensions) return [];
  const queryVector = await embedQuery(embedder, q);
  const literal = toVectorLiteral(queryVector);
  type Row = {
    id: string;
    meeting_id: string;
    title: string | null;
    started_ms: number;
    first_sequence: number;
    last_sequence: number;
    distance: number;
  };
  const select = sql`p.id, p.meeting_id, m.title, (extract(epoch from m.started_at) * 1000)::float8 as started_ms, p.first_sequence, p.last_sequence, p.embedding <=> ${literal}::vector as distance`;
  const from = sql`from passages p join meetings m on m.id = p.meeting_id
              where p.account_id = ${accountId} and p.model = ${embedder.model} and p.embedding is not null
              ${meetingConditions(filters)}${bySpeaker}`;
  // 2 × limit candidates by meaning and as many holding all its words; the best 2 × limit of both, ranked
  // by the blended score, go on to choose their moments.
  const pool = 2 * limit;
  const byMeaning = await vectorSearch<Row>(db, {
    select,
    from,
    distance: sql`p.embedding <=> ${literal}::vector`,
    limit: pool,
    exactMaxRows: services.exactSearchMaxRows,
  });
  const fullText = hasWords(q) ? fullTextMatch(q) : null;
  const byWords = fullText
    ? await queryRows<Row & { rank: number }>(
        db,
        sql`select ${select}, ${fullText.rank} as rank ${from} and ${fullText.matches} order by rank desc, p.id limit ${pool}`,
      )
    : [];
  const rows = await rankBlended(
    db,
    q,
    { byMeaning, byWords },
    { of: sql`from passages p where p.account_id = ${accountId}`, id: sql`p.id`, words: PASSAGE_WORDS },
    pool,
  );
  if (rows.length === 0) return [];

  // The hits' segments, in one query.
  const ranges = rows.map(
    (r) =>
      sql`(meeting_id = ${r.meeting_id} and sequence between ${r.first_sequence} and ${r.last_sequence})`,
  );
  const segments = await queryRows<{
    meeting_id: string;
    sequence: number;
    speaker: string;
    content: string;
    start_time: number;
  }>(
    db,
    sql`select meeting_id, sequence, speaker, content, start_time from transcript_segments where ${sql.join(ranges, sql` or `)} order by meeting_id, sequence`,
  );
  // The hits' segment vectors (read for these rows only, not for every candidate of the scan).
  // As base64 text, not bytea: PGlite decodes a bytea's hex form character by character in
  // JavaScript, which took nearly half of a search's time; Node decodes base64 natively
  // (docs/performance.md#segment-vectors-read-as-base64).
  const vectorRows = await queryRows<{ id: string; segment_embeddings: string | null }>(
    db,
    sql`select id, encode(segment_embeddings, 'base64') as segment_embeddings from passages where id in (${sql.join(
      rows.map((r) => sql`${r.id}`),
      sql`, `,
    )})`,
  );
  const bytesOf = new Map(
    vectorRows.map((r) => [r.id, r.segment_embeddings ? Buffer.from(r.segment_embeddings, 'base64') : null]),
  );
  const dims = embedder.dimensions;
  const candidates = rows.map((row) => {
    const own = segments.filter(
      (s) =>
        s.meeting_id === row.meeting_id &&
        s.sequence >= row.first_sequence &&
        s.sequence <= row.last_sequence,
    );
    const bytes = bytesOf.get(row.id);
    const flat = bytes ? readSegmentVectors(bytes) : null;
    // Stored at indexing time for every segment of the passage; rows indexed before migration
    // 0005 (until a reindex) have none, and a transcript changed since would not line up.
    return { row, own, stored: flat && flat.length === own.length * dims ? flat : null };
  });
  // Without stored segment vectors (a meeting whose passages are stored and whose segments are
  // still being embedded, for a few seconds; rows from before migration 0005 until a reindex),
  // the segment sharing most of the query's words is the moment: the model is never run for
  // them in the request, where a long new meeting's segments would take seconds.
  const queryStems = new Set(tokenize(q).map((t) => t.token));
  const wordsInCommon = (content: string) => {
    let n = 0;
    for (const stem of new Set(tokenize(content).map((t) => t.token))) if (queryStems.has(stem)) n++;
    return n;
  };

  const seen = new Set<string>();
  const hits: PassageHit[] = [];
  for (const { row, own, stored } of candidates) {
    if (hits.length >= limit) break;
    const scoreOf = (segment: (typeof own)[number], j: number) =>
      stored ? dot(stored, queryVector, j * dims) : wordsInCommon(segment.content);
    let best = 0;
    let bestScore = -Infinity;
    for (const [j, segment] of own.entries()) {
      if (filters.speaker && !sameSpeaker(segment.speaker, filters.speaker)) continue;
      const s = scoreOf(segment, j);
      if (s > bestScore) [best, bestScore] = [j, s];
    }
    // The database and JavaScript could fold a rare letter's case differently: no segment of the
    // speaker here, no moment.
    if (bestScore === -Infinity) continue;
    const segment = own[best];
    const sequence = segment?.sequence ?? row.first_sequence;
    const moment = `${row.meeting_id}:${sequence}`;
    if (seen.has(moment)) continue;
    seen.add(moment);
    const { text, spans } = passageText(own);
    const span = spans.find((s) => s.segment === segment) ?? spans[0];
    hits.push({
      noteId: row.meeting_id,
      title: row.title,
      startedAt: new Date(Number(row.started_ms)),
      speaker: segment?.speaker ?? '',
      snippet: makeSnippet(text, span ?? { start: 0, end: text.length }, q),
      score: row.score,
      startTime: Number(segment?.start_time ?? 0),
      sequence,
      relevance: relevanceOf(embedder.model, row.score),
    });
  }
  return hits;
}
