import { type SQL, sql } from 'drizzle-orm';
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

/** The tsvector of a passage's text in its configuration (a literal from the list above). */
export const searchVectorOf = (config: string, text: string): SQL =>
  sql`to_tsvector(${config}::regconfig, ${text})`;

/** Whether the query has a word at all (a query of punctuation has nothing to match). */
export const hasWords = (q: string): boolean => scan(q).length > 0;

/**
 * The condition "passage `p` holds every word of the query" (websearch_to_tsquery's reading: each
 * word stemmed and stop words dropped as the passage's configuration does, "quoted phrases" and
 * -exclusions honoured) and its cover-density rank in [0, 1), one arm per configuration so that
 * each can use the GIN index on search_vector. Every word, not any: a passage holding only some
 * of them gains little (blendedScore squares the share), and asking for all keeps the rows to rank
 * few where a common word would match thousands.
 */
export function fullTextMatch(q: string): { matches: SQL; rank: SQL } {
  const query = (config: string) => sql`websearch_to_tsquery(${config}::regconfig, ${q})`;
  const arms = TEXT_SEARCH_CONFIGS.map(
    (config) => sql`(p.text_search_config = ${config} and p.search_vector @@ ${query(config)})`,
  );
  const byConfig = TEXT_SEARCH_CONFIGS.map((config) => sql`when ${config} then ${query(config)}`);
  return {
    matches: sql`(${sql.join(arms, sql` or `)})`,
    // Normalisation 32: rank / (rank + 1).
    rank: sql`ts_rank_cd(p.search_vector, case p.text_search_config ${sql.join(byConfig, sql` `)} end, 32)`,
  };
}

/**
 * The share of the query's words, as passage `p`'s configuration reads them (stemmed, stop words
 * dropped), that the passage holds: 1 when it holds them all, 0 when none or the query has none.
 */
export function wordCoverage(q: string): SQL {
  const queryWords = sql`tsvector_to_array(to_tsvector(p.text_search_config::regconfig, ${q}))`;
  return sql`coalesce(cardinality(array(select unnest(tsvector_to_array(p.search_vector)) intersect select unnest(${queryWords})))::float8 / nullif(cardinality(${queryWords}), 0), 0)`;
}
