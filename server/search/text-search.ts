import { type SQL, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { scan } from '../text/tokenize';

// Full-text search over passages (docs/rules.md#search): each passage's words are stored as a
// tsvector read in the text-search configuration of its meeting's language, so that "running"
// finds "run" in English and "coureurs" finds "coureur" in French. A language PostgreSQL has no
// configuration for is read with 'simple' (words lowercased, not stemmed).

/** A meeting's language (its primary subtag, e.g. "en" of "en-GB") → PostgreSQL's configuration. */
const CONFIG_OF_LANGUAGE: Record<string, string> = {
  en: 'english',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  sv: 'swedish',
  da: 'danish',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  fi: 'finnish',
  ru: 'russian',
  tr: 'turkish',
  hu: 'hungarian',
  ro: 'romanian',
};

/** Every configuration a passage may be stored in. */
export const TEXT_SEARCH_CONFIGS = [...new Set(Object.values(CONFIG_OF_LANGUAGE)), 'simple'];

export function textSearchConfig(language: string): string {
  const primary = language.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return CONFIG_OF_LANGUAGE[primary] ?? 'simple';
}

/** The tsvector of a text in a configuration (a name from the list above). */
export const searchVectorOf = (config: string, text: string): SQL =>
  sql`to_tsvector(${config}::regconfig, ${text})`;

/** Where a row keeps its words and the configuration they were read in. */
export interface SearchColumns {
  config: SQL;
  vector: SQL;
}

/** A passage `p`'s words. */
export const PASSAGE_WORDS: SearchColumns = {
  config: sql`p.text_search_config`,
  vector: sql`p.search_vector`,
};
/** A meeting `m`'s summary's words. */
export const SUMMARY_WORDS: SearchColumns = {
  config: sql`m.summary_search_config`,
  vector: sql`m.summary_search_vector`,
};

/** Whether the query has a word at all (a query of punctuation has nothing to match). */
export const hasWords = (q: string): boolean => scan(q).length > 0;

/**
 * The condition "the row (passage `p` by default) holds every word of the query" (websearch_to_tsquery's reading: each
 * word stemmed and stop words dropped as the passage's configuration does, "quoted phrases" and
 * -exclusions honoured) and its cover-density rank in [0, 1), one arm per configuration so that
 * each can use the GIN index on search_vector. Every word, not any: a passage holding only some
 * of them gains little (blendedScore squares the share), and asking for all keeps the rows to rank
 * few where a common word would match thousands.
 */
export function fullTextMatch(q: string, words: SearchColumns = PASSAGE_WORDS): { matches: SQL; rank: SQL } {
  const query = (config: string) => sql`websearch_to_tsquery(${config}::regconfig, ${q})`;
  const arms = TEXT_SEARCH_CONFIGS.map(
    (config) => sql`(${words.config} = ${config} and ${words.vector} @@ ${query(config)})`,
  );
  const byConfig = TEXT_SEARCH_CONFIGS.map((config) => sql`when ${config} then ${query(config)}`);
  return {
    matches: sql`(${sql.join(arms, sql` or `)})`,
    // Normalisation 32: rank / (rank + 1).
    rank: sql`ts_rank_cd(${words.vector}, case ${words.config} ${sql.join(byConfig, sql` `)} end, 32)`,
  };
}

/**
 * The share of the query's words, as the row's configuration reads them (stemmed, stop words
 * dropped), that the passage holds: 1 when it holds them all, 0 when none or the query has none.
 */
export function wordCoverage(q: string, words: SearchColumns = PASSAGE_WORDS): SQL {
  const queryWords = sql`tsvector_to_array(to_tsvector(${words.config}::regconfig, ${q}))`;
  return sql`coalesce(cardinality(array(select unnest(tsvector_to_array(${words.vector})) intersect select unnest(${queryWords})))::float8 / nullif(cardinality(${queryWords}), 0), 0)`;
}

/**
 * How much a passage that holds the query's words gains: with a share `c` of them, its cosine
 * similarity moves WORD_MATCH_WEIGHT × c² of the way to 1. A passage holding none keeps its
 * similarity, so a query in other words than the meeting's (a paraphrase) ranks by meaning alone;
 * one naming the meeting's own words puts the passage holding them first; squaring keeps a
 * passage that shares a word or two with a paraphrase from rising. Below 1, passages holding all
 * the words keep their order by cosine. Chosen on the development set
 * (docs/performance.md#search-quality).
 */
export const WORD_MATCH_WEIGHT = 0.5;

/** The score of a passage: its cosine similarity, raised toward 1 by the share of the query's words it holds. */
export const blendedScore = (cosine: number, coverage: number) =>
  cosine + (1 - cosine) * WORD_MATCH_WEIGHT * coverage ** 2;

/**
 * The candidates found by meaning and by words, one each, ranked by blendedScore (ties by id) and
 * cut to `limit`. The share of the query's words each holds is read in one query over the
 * candidates' rows (`rowsOf`: their table, alias and account condition), and only when some row
 * holds them all (`byWords` is not empty); otherwise every score is the cosine similarity.
 */
export async function rankBlended<R extends { id: string; distance: number }>(
  db: Queryable,
  q: string,
  found: { byMeaning: R[]; byWords: R[] },
  rows: { of: SQL; id: SQL; words: SearchColumns },
  limit: number,
): Promise<(R & { score: number })[]> {
  const candidates = [...new Map([...found.byMeaning, ...found.byWords].map((r) => [r.id, r])).values()];
  const covered =
    found.byWords.length && candidates.length
      ? await queryRows<{ id: string; coverage: number }>(
          db,
          sql`select ${rows.id} as id, ${wordCoverage(q, rows.words)} as coverage ${rows.of} and ${rows.id} in (${sql.join(
            candidates.map((r) => sql`${r.id}`),
            sql`, `,
          )})`,
        )
      : [];
  const coverageOf = new Map(covered.map((r) => [r.id, Number(r.coverage)]));
  return candidates
    .map((r) => ({ ...r, score: blendedScore(1 - Number(r.distance), coverageOf.get(r.id) ?? 0) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, limit);
}
