// Checks a retrieval evaluation set (same format as the semantic dev set: `passages` with id, lang,
// topic and text; `queries` with id, text, expected, kind, lang and crossLingual) against the rules
// the set is built on, using the project's search tokenizer (NFKD folding, lower case, stop words
// removed, Porter stems):
//
// - ids are unique, every `expected` names a passage, fields have the right types and values;
// - every passage has exactly one paraphrase query, and a paraphrase query shares NO content stem
//   with its passage (numbers count as stems); crossLingual is true exactly when the query's
//   language differs from its passage's;
// - there are 10 keyword queries, for 10 different passages, each sharing at least 2 stems with its
//   passage, and no other passage shares as many stems with it;
// - passages are 60 to 110 words long.
//
//   npx tsx scripts/search-eval/check-set.ts scripts/search-eval/held-out-set.json
//
// Prints every problem found (for paraphrase queries: the shared stems) and exits 1 if any.
import fs from 'node:fs';
import { tokenize } from '../../server/text/tokenize';

interface Passage {
  id: string;
  lang: string;
  topic: string;
  text: string;
}

interface Query {
  id: string;
  text: string;
  expected: string;
  kind: string;
  lang: string;
  crossLingual: boolean;
}

interface EvalSet {
  name: string;
  version: number;
  description: string;
  passages: Passage[];
  queries: Query[];
}

const LANGS = new Set(['en', 'fr', 'es', 'de']);
const KINDS = new Set(['paraphrase', 'keyword']);
const KEYWORD_QUERIES = 10;
const MIN_KEYWORD_SHARED = 2;
const MIN_WORDS = 60;
const MAX_WORDS = 110;

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx scripts/search-eval/check-set.ts <set.json>');
  process.exit(2);
}

const set = JSON.parse(fs.readFileSync(file, 'utf8')) as EvalSet;
const problems: string[] = [];
const problem = (message: string) => problems.push(message);

const stems = (text: string) => new Set(tokenize(text).map((t) => t.token));
const shared = (a: Set<string>, b: Set<string>) => [...a].filter((s) => b.has(s)).sort();
const isString = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

// Top level
for (const key of ['name', 'description'] as const) {
  if (!isString(set[key])) problem(`top level: "${key}" must be a non-empty string`);
}
if (typeof set.version !== 'number') problem('top level: "version" must be a number');
if (!Array.isArray(set.passages) || !Array.isArray(set.queries)) {
  problem('top level: "passages" and "queries" must be arrays');
  report();
}
const topKeys = Object.keys(set).sort().join(',');
if (topKeys !== 'description,name,passages,queries,version') problem(`top level: unexpected keys ${topKeys}`);

// Passages
const passages = new Map<string, Passage>();
const passageStems = new Map<string, Set<string>>();
for (const p of set.passages) {
  const keys = Object.keys(p).sort().join(',');
  if (keys !== 'id,lang,text,topic')
    problem(`passage ${p.id}: keys must be id, lang, topic, text (got ${keys})`);
  if (!isString(p.id)) {
    problem(`passage without an id: ${JSON.stringify(p).slice(0, 80)}`);
    continue;
  }
  if (passages.has(p.id)) problem(`passage ${p.id}: duplicate id`);
  if (!LANGS.has(p.lang)) problem(`passage ${p.id}: lang "${p.lang}" is not one of ${[...LANGS].join(', ')}`);
  if (!isString(p.topic)) problem(`passage ${p.id}: missing topic`);
  if (!isString(p.text)) {
    problem(`passage ${p.id}: missing text`);
    continue;
  }
  const words = p.text.trim().split(/\s+/).length;
  if (words < MIN_WORDS || words > MAX_WORDS) {
    problem(`passage ${p.id}: ${words} words (want ${MIN_WORDS}-${MAX_WORDS})`);
  }
  passages.set(p.id, p);
  passageStems.set(p.id, stems(p.text));
}

// Queries
const queryIds = new Set<string>();
const paraphrasesFor = new Map<string, string[]>();
const keywordPassages = new Map<string, string>();
let keywordCount = 0;
for (const q of set.queries) {
  const keys = Object.keys(q).sort().join(',');
  if (keys !== 'crossLingual,expected,id,kind,lang,text') {
    problem(`query ${q.id}: keys must be id, text, expected, kind, lang, crossLingual (got ${keys})`);
  }
  if (!isString(q.id)) {
    problem(`query without an id: ${JSON.stringify(q).slice(0, 80)}`);
    continue;
  }
  if (queryIds.has(q.id) || passages.has(q.id)) problem(`query ${q.id}: duplicate id`);
  queryIds.add(q.id);
  if (!isString(q.text)) problem(`query ${q.id}: missing text`);
  if (!KINDS.has(q.kind)) problem(`query ${q.id}: kind "${q.kind}" is not paraphrase or keyword`);
  if (!LANGS.has(q.lang)) problem(`query ${q.id}: lang "${q.lang}" is not one of ${[...LANGS].join(', ')}`);
  if (typeof q.crossLingual !== 'boolean') problem(`query ${q.id}: crossLingual must be a boolean`);
  const passage = passages.get(q.expected);
  const pStems = passageStems.get(q.expected);
  if (!passage || !pStems) {
    problem(`query ${q.id}: expected passage "${q.expected}" does not exist`);
    continue;
  }
  if (q.crossLingual !== (q.lang !== passage.lang)) {
    problem(
      `query ${q.id}: crossLingual is ${q.crossLingual} but query is "${q.lang}", passage is "${passage.lang}"`,
    );
  }
  const qStems = stems(q.text ?? '');
  const common = shared(qStems, pStems);
  if (q.kind === 'paraphrase') {
    paraphrasesFor.set(q.expected, [...(paraphrasesFor.get(q.expected) ?? []), q.id]);
    if (common.length > 0) {
      problem(`paraphrase ${q.id} → ${q.expected} shares stems: ${common.join(', ')}`);
    }
  } else if (q.kind === 'keyword') {
    keywordCount++;
    const other = keywordPassages.get(q.expected);
    if (other) problem(`keyword ${q.id} → ${q.expected}: passage already has keyword query ${other}`);
    keywordPassages.set(q.expected, q.id);
    if (common.length < MIN_KEYWORD_SHARED) {
      problem(
        `keyword ${q.id} → ${q.expected}: shares ${common.length} stems (want ≥ ${MIN_KEYWORD_SHARED})`,
      );
    }
    for (const [id, s] of passageStems) {
      if (id === q.expected) continue;
      const rival = shared(qStems, s);
      if (rival.length >= common.length && rival.length > 0) {
        problem(`keyword ${q.id} → ${q.expected}: passage ${id} shares as many stems (${rival.join(', ')})`);
      }
    }
    console.log(`keyword    ${q.id} → ${q.expected}: shares ${common.join(', ')}`);
  }
}

for (const id of passages.keys()) {
  const ids = paraphrasesFor.get(id) ?? [];
  if (ids.length !== 1) problem(`passage ${id}: ${ids.length} paraphrase queries (want exactly 1)`);
}
if (keywordCount !== KEYWORD_QUERIES) problem(`${keywordCount} keyword queries (want ${KEYWORD_QUERIES})`);

report();

function report(): never {
  const count = <T>(items: T[], key: (item: T) => string) => {
    const counts = new Map<string, number>();
    for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
    return [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
  };
  console.log(
    `\n${set.passages?.length ?? 0} passages (${count(set.passages ?? [], (p) => p.lang)}), ` +
      `${set.queries?.length ?? 0} queries (${count(set.queries ?? [], (q) => `${q.kind}/${q.lang}${q.crossLingual ? '/cross' : ''}`)})`,
  );
  if (problems.length === 0) {
    console.log('OK: no paraphrase query shares a stem with its passage; ids and format are valid.');
    process.exit(0);
  }
  console.log(`\n${problems.length} problem(s):`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
