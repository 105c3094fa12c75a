// npm run bench:search [-- --passages 100000 --accounts 1000 --queries 50 --db pglite|postgres|both --dimensions 768]
// The search benchmark. Builds a synthetic corpus of meeting transcripts (passages spread
// over many accounts: one small account of 20 passages, one large of 20,000, the rest in between),
// embeds it with the local embedder (topic vocabularies give clustered vectors, unlike uniform
// random ones), bulk-inserts it with the HNSW index dropped and then builds the index, timing
// each phase. Then, for the small, a typical and the large account, it reports p50/p95 latency
// of GET /v1/notes/search through the real handlers over HTTP (default SEARCH_EXACT_MAX_ROWS, and
// a lowered one so the large account goes through HNSW) and of the straight SQL queries (exact,
// and HNSW with iterative scans as vector-search.ts runs them), recall@10 of the HNSW path
// against exact search, the fewest hits any query got, and the plan the planner chose. Where the
// planner answers the HNSW query exactly (small accounts) it also forces the index, to show what
// HNSW alone returns for a selective filter; and for the large account it tries a few
// hnsw.ef_search values (--ef-sweep).
// Runs on the embedded PGlite and, when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a
// PostgreSQL server, on PostgreSQL too (--db picks). Progress goes to stderr (--explain adds the
// plans); tables and one JSON line with every figure go to stdout. Quick try:
//   npx tsx scripts/bench-search.ts --passages 5000 --accounts 50
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql, type SQL } from 'drizzle-orm';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import { queryRows, type Database, type Db } from '../server/db/client';
import { PLATFORMS } from '../server/domain';
import { LocalEmbedder } from '../server/embeddings/local-embedder';
import { parseEnv } from '../server/env';
import { serveNode } from '../server/http/serve-node';
import { createV1Handler } from '../server/rest/v1-handler';
import { changeDimensions, HNSW_BUILD } from '../server/search/embedding-dimensions';
import { embedEach } from '../server/search/embed-checked';
import { makePassages } from '../server/search/make-passages';
import { HNSW_EF_SEARCH, hnswSettings, toVectorLiteral } from '../server/search/vector-search';
import { createServices, type Services } from '../server/services';
import { createTestDatabase } from '../test/support/test-database';
import { percentile } from './bench-stats';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '100000' },
    accounts: { type: 'string', default: '1000' },
    queries: { type: 'string', default: '50' },
    db: { type: 'string' },
    /** Passages of the large account (clipped to a fifth of the corpus). */
    large: { type: 'string', default: '20000' },
    small: { type: 'string', default: '20' },
    /** SEARCH_EXACT_MAX_ROWS for the second server, so the large account goes through HNSW. */
    'hnsw-threshold': { type: 'string', default: '1000' },
    /**
     * Vector dimension of the corpus (the word-matching embedder at that size; the semantic default
     * stores 768). Embedding 100,000 passages with the semantic model itself would take hours on
     * two cores, so the index is measured at its dimension on these vectors.
     */
    dimensions: { type: 'string', default: '768' },
    'maintenance-work-mem': { type: 'string' },
    /** HNSW build parameters to try (pgvector's defaults: m 16, ef_construction 64). */
    'hnsw-m': { type: 'string' },
    'ef-construction': { type: 'string' },
    seed: { type: 'string', default: '42' },
    /** hnsw.ef_search values to try on the large account (straight SQL); empty for none. */
    'ef-sweep': { type: 'string', default: '40,64,80,100,200' },
    /** Print the HNSW query's plan for each measured account on stderr. */
    explain: { type: 'boolean', default: false },
    /**
     * Experiment: index half-precision copies of the vectors (an expression index on
     * embedding::halfvec(dim)) and order the straight-SQL HNSW query by them; distances, recall and
     * the exact search stay in full precision. The service does not do this, so the HTTP rows of
     * such a run do not go through that index.
     */
    halfvec: { type: 'boolean', default: false },
  },
});

const intFlag = (name: string, value: string | undefined, min: number) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
};
const PASSAGES = intFlag('passages', values.passages, 100);
const ACCOUNTS = intFlag('accounts', values.accounts, 3);
const QUERIES = intFlag('queries', values.queries, 1);
const SMALL = intFlag('small', values.small, 10);
const LARGE = Math.min(intFlag('large', values.large, 20), Math.floor(PASSAGES / 5));
const DIMENSIONS = intFlag('dimensions', values.dimensions, 16);
const HNSW_THRESHOLD = Math.min(
  intFlag('hnsw-threshold', values['hnsw-threshold'], 10),
  Math.floor(LARGE / 2),
);
const SEED = intFlag('seed', values.seed, 0);
const EF_SWEEP = (values['ef-sweep'] ?? '')
  .split(',')
  .filter((x) => x.trim())
  .map((x) => intFlag('ef-sweep', x.trim(), 1));
const WARM_UP = 5;
const K = 10;
if (PASSAGES - SMALL - LARGE < ACCOUNTS - 2)
  throw new Error('--passages is too small for that many accounts');

const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const which = values.db ?? (serverUrl ? 'both' : 'pglite');
if (!['pglite', 'postgres', 'both'].includes(which)) throw new Error('--db must be pglite, postgres or both');
if (which !== 'pglite' && !serverUrl)
  throw new Error('--db postgres needs BENCH_DATABASE_URL (or TEST_DATABASE_URL)');

const progress = (line: string) => process.stderr.write(`${line}\n`);
const seconds = (ms: number) => +(ms / 1000).toFixed(1);
const round = (x: number, digits = 1) => +x.toFixed(digits);

// ---------------------------------------------------------------------------------------------
// Deterministic randomness: both databases get the same corpus and queries.

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
type Rng = () => number;
/** xs[i], or an error naming the index when there is none. */
function nth<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`no element ${i} in a list of ${xs.length}`);
  return x;
}
const pick = <T>(rng: Rng, xs: readonly T[]): T => nth(xs, Math.floor(rng() * xs.length));
const intBetween = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const gaussian = (rng: Rng) => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());

// ---------------------------------------------------------------------------------------------
// Vocabulary: 40 meeting topics. A meeting talks mostly about one topic, a little about a second
// and now and then about any; filler words are shared by all. The local embedder is lexical, so
// passages of one topic end up near each other: clustered vectors, as real transcripts give.

const TOPICS: readonly (readonly string[])[] = [
  [
    'budget',
    'forecast',
    'spend',
    'invoice',
    'cashflow',
    'variance',
    'ledger',
    'accrual',
    'headcount cost',
    'finance review',
  ],
  [
    'hiring',
    'candidate',
    'interview loop',
    'recruiter',
    'offer letter',
    'job posting',
    'referral',
    'sourcing',
    'onsite',
    'hiring manager',
  ],
  [
    'roadmap',
    'milestone',
    'epic',
    'feature flag',
    'release train',
    'backlog',
    'scope',
    'theme',
    'initiative',
    'north star',
  ],
  [
    'incident',
    'outage',
    'pager',
    'postmortem',
    'root cause',
    'severity',
    'mitigation',
    'timeline',
    'on-call',
    'status page',
  ],
  [
    'database',
    'postgres',
    'replication',
    'failover',
    'migration script',
    'schema',
    'vacuum',
    'index bloat',
    'connection pool',
    'replica lag',
  ],
  [
    'marketing campaign',
    'landing page',
    'newsletter',
    'conversion',
    'webinar',
    'ad spend',
    'funnel',
    'lead magnet',
    'audience',
    'attribution',
  ],
  [
    'churn',
    'renewal',
    'retention',
    'cancellation',
    'health score',
    'win-back',
    'downgrade',
    'customer success',
    'expansion',
    'net revenue',
  ],
  [
    'pricing',
    'tier',
    'discount',
    'seat price',
    'annual plan',
    'usage billing',
    'paywall',
    'packaging',
    'price increase',
    'free trial',
  ],
  [
    'onboarding',
    'welcome email',
    'activation',
    'checklist',
    'tutorial',
    'first run',
    'empty state',
    'setup wizard',
    'time to value',
    'walkthrough',
  ],
  [
    'mobile app',
    'ios build',
    'android',
    'app store',
    'push notification',
    'testflight',
    'crash rate',
    'offline mode',
    'deep link',
    'tablet layout',
  ],
  [
    'design review',
    'mockup',
    'figma',
    'typography',
    'spacing',
    'color palette',
    'component library',
    'prototype',
    'wireframe',
    'icon set',
  ],
  [
    'contract',
    'clause',
    'liability',
    'indemnity',
    'redline',
    'counsel',
    'signature',
    'termination',
    'master agreement',
    'legal review',
  ],
  [
    'sales pipeline',
    'quota',
    'deal desk',
    'prospect',
    'demo call',
    'procurement',
    'closing',
    'forecast call',
    'champion',
    'territory',
  ],
  [
    'support ticket',
    'escalation',
    'backlog queue',
    'response time',
    'macro',
    'help center',
    'satisfaction survey',
    'triage',
    'zendesk',
    'refund request',
  ],
  [
    'cloud cost',
    'reserved instance',
    'autoscaling',
    'kubernetes',
    'node pool',
    'egress',
    'storage tier',
    'rightsizing',
    'savings plan',
    'cluster',
  ],
  [
    'load test',
    'latency',
    'throughput',
    'benchmark',
    'profiling',
    'flame graph',
    'cache hit',
    'p99',
    'regression',
    'capacity',
  ],
  [
    'accessibility',
    'screen reader',
    'contrast ratio',
    'keyboard navigation',
    'aria label',
    'wcag',
    'focus order',
    'captions',
    'alt text',
    'audit findings',
  ],
  [
    'localization',
    'translation',
    'locale',
    'german strings',
    'right-to-left',
    'glossary',
    'date format',
    'translator',
    'currency display',
    'pluralization',
  ],
  [
    'privacy',
    'gdpr',
    'data retention',
    'consent banner',
    'deletion request',
    'data processing',
    'dpa',
    'subprocessor',
    'anonymization',
    'privacy policy',
  ],
  [
    'quarterly planning',
    'okr',
    'objective',
    'key result',
    'commitment',
    'stretch goal',
    'capacity planning',
    'dependency',
    'planning poker',
    'quarter kickoff',
  ],
  [
    'office move',
    'lease',
    'floor plan',
    'desk booking',
    'furniture',
    'movers',
    'parking',
    'facilities',
    'badge access',
    'kitchen',
  ],
  [
    'offsite',
    'venue',
    'agenda',
    'team dinner',
    'workshop',
    'travel booking',
    'hotel',
    'icebreaker',
    'hackathon',
    'keynote',
  ],
  [
    'vendor',
    'rfp',
    'shortlist',
    'evaluation matrix',
    'reference call',
    'security questionnaire',
    'pilot',
    'procurement review',
    'sla',
    'vendor lock-in',
  ],
  [
    'partnership',
    'integration partner',
    'co-marketing',
    'revenue share',
    'marketplace listing',
    'joint customer',
    'partner portal',
    'referral fee',
    'alliance',
    'reseller',
  ],
  [
    'fundraising',
    'investor',
    'term sheet',
    'valuation',
    'pitch deck',
    'due diligence',
    'runway',
    'series b',
    'cap table',
    'lead investor',
  ],
  [
    'board meeting',
    'board deck',
    'director',
    'governance',
    'committee',
    'minutes',
    'resolution',
    'option grant',
    'audit committee',
    'board approval',
  ],
  [
    'analytics',
    'dashboard',
    'cohort',
    'retention curve',
    'event tracking',
    'metric definition',
    'funnel report',
    'warehouse query',
    'looker',
    'segment',
  ],
  [
    'experiment',
    'a/b test',
    'variant',
    'control group',
    'statistical significance',
    'sample size',
    'holdout',
    'uplift',
    'hypothesis',
    'guardrail metric',
  ],
  [
    'api versioning',
    'deprecation',
    'breaking change',
    'sdk',
    'endpoint',
    'changelog',
    'rate limit',
    'webhook',
    'openapi',
    'client library',
  ],
  [
    'billing system',
    'stripe',
    'proration',
    'dunning',
    'failed payment',
    'credit note',
    'tax calculation',
    'subscription',
    'chargeback',
    'payment method',
  ],
  [
    'search relevance',
    'ranking',
    'embedding',
    'query log',
    'synonym',
    'recall',
    'precision',
    'reranker',
    'vector index',
    'typo tolerance',
  ],
  [
    'machine learning',
    'training data',
    'model drift',
    'feature store',
    'inference',
    'gpu',
    'evaluation set',
    'labeling',
    'fine-tuning',
    'overfitting',
  ],
  [
    'documentation',
    'docs site',
    'api reference',
    'guide',
    'code sample',
    'style guide',
    'docs review',
    'quickstart',
    'screenshot',
    'versioned docs',
  ],
  [
    'security',
    'penetration test',
    'vulnerability',
    'patch',
    'access review',
    'sso',
    'mfa',
    'secrets rotation',
    'phishing',
    'threat model',
  ],
  [
    'compliance',
    'soc 2',
    'auditor',
    'control',
    'evidence collection',
    'iso 27001',
    'policy review',
    'risk register',
    'hipaa',
    'attestation',
  ],
  [
    'performance review',
    'calibration',
    'promotion',
    'feedback',
    'self assessment',
    'career ladder',
    'compensation',
    'manager review',
    'growth plan',
    'peer review',
  ],
  [
    'customer interview',
    'user research',
    'persona',
    'pain point',
    'jobs to be done',
    'usability test',
    'research synthesis',
    'insight',
    'recruiting participants',
    'discussion guide',
  ],
  [
    'brand',
    'logo',
    'rebrand',
    'tagline',
    'brand guidelines',
    'voice and tone',
    'illustration',
    'website refresh',
    'agency',
    'brand launch',
  ],
  [
    'warehouse',
    'shipping',
    'inventory',
    'fulfillment',
    'carrier',
    'pick and pack',
    'stockout',
    'returns',
    'logistics',
    'pallet',
  ],
  [
    'fraud',
    'chargeback rate',
    'risk score',
    'suspicious account',
    'velocity check',
    'card testing',
    'manual review',
    'fraud rule',
    'blocklist',
    'account takeover',
  ],
];

const NAMES = [
  'Ana',
  'Ben',
  'Chloé',
  'Dmitri',
  'Eva',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Luis',
  'Maya',
  'Noor',
  'Omar',
  'Priya',
];
const VERBS = [
  'review',
  'update',
  'finish',
  'check',
  'share',
  'schedule',
  'prioritise',
  'estimate',
  'draft',
  'revisit',
  'unblock',
  'document',
  'ship',
  'test',
  'measure',
  'simplify',
];
const ADJS = [
  'fine',
  'risky',
  'behind',
  'ahead of plan',
  'great',
  'unclear',
  'expensive',
  'slow',
  'stable',
  'messy',
  'promising',
  'blocked',
];
const FILLER = [
  'plan',
  'decision',
  'follow-up',
  'deadline',
  'owner',
  'priority',
  'document',
  'proposal',
  'estimate',
  'question',
  'blocker',
  'summary',
  'next step',
  'update',
];
const PERIODS = ['week', 'sprint', 'month', 'quarter'];
const UNITS = ['minutes', 'hours', 'days', 'weeks'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'the end of the month', 'next week'];
const TEMPLATES = [
  'We need to {v} the {t} and the {t} before {d}.',
  '{n} said the {t} is {a}, and the {t} needs another look.',
  'Can we {v} the {t} by {d}? The {f} depends on it.',
  'I think the {t} is the main {f} this {p}.',
  'Last {p} the {t} took {#} {u}, which is {a}.',
  "Let's {v} the {t} and the {t} in the {f} next {p}.",
  'The {f} for the {t} is still open; {n} will {v} it.',
  'Our {t} numbers look {a}: {#} percent on {t}.',
  'Any questions about the {t} or the {t}?',
  '{n} agreed to {v} the {t} {f} with the {t} folks.',
  'So the {t} is {a}, but honestly the {t} worries me more.',
  'Okay, moving on to {t}. {n}, where are we with the {t}?',
];

interface MeetingDraft {
  id: string;
  title: string;
  platform: string;
  createdAt: Date;
  durationSeconds: number;
  segments: { sequence: number; speaker: string; content: string; startTime: number; endTime: number }[];
  passages: { position: number; text: string; firstSequence: number; lastSequence: number }[];
}

function sentence(rng: Rng, main: number, second: number): string {
  const topicWord = () => {
    const r = rng();
    const topic = r < 0.7 ? main : r < 0.9 ? second : Math.floor(rng() * TOPICS.length);
    return pick(rng, nth(TOPICS, topic));
  };
  const text = pick(rng, TEMPLATES).replace(/\{(.)\}/g, (_, slot: string) => {
    switch (slot) {
      case 't':
        return topicWord();
      case 'v':
        return pick(rng, VERBS);
      case 'a':
        return pick(rng, ADJS);
      case 'f':
        return pick(rng, FILLER);
      case 'p':
        return pick(rng, PERIODS);
      case 'u':
        return pick(rng, UNITS);
      case 'd':
        return pick(rng, DAYS);
      case 'n':
        return pick(rng, NAMES);
      default:
        return String(intBetween(rng, 2, 95));
    }
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One meeting with exactly `passageCount` passages, cut from its segments by the app's own makePassages. */
function makeMeeting(rng: Rng, favourites: number[], passageCount: number, createdAt: Date): MeetingDraft {
  const main = rng() < 0.8 ? pick(rng, favourites) : Math.floor(rng() * TOPICS.length);
  const second = rng() < 0.5 ? pick(rng, favourites) : Math.floor(rng() * TOPICS.length);
  const speakers = Array.from({ length: intBetween(rng, 2, 5) }, () => pick(rng, NAMES));
  const segments: MeetingDraft['segments'] = [];
  let clock = 0;
  let drafts: ReturnType<typeof makePassages> = [];
  while (drafts.length <= passageCount) {
    // A segment of one to three sentences (~60–250 characters); ~2 new segments per passage.
    for (let i = 0; i < passageCount * 2 + 4; i++) {
      const content = Array.from({ length: intBetween(rng, 1, 3) }, () => sentence(rng, main, second)).join(
        ' ',
      );
      const length = 3 + content.length / 15;
      segments.push({
        sequence: segments.length + 1,
        speaker: pick(rng, speakers),
        content,
        startTime: round(clock, 2),
        endTime: round(clock + length, 2),
      });
      clock += length + rng() * 2;
    }
    drafts = makePassages(segments);
  }
  const kept = drafts.slice(0, passageCount);
  const lastSequence = nth(kept, kept.length - 1).lastSequence;
  const used = segments.filter((s) => s.sequence <= lastSequence);
  return {
    id: randomUUID(),
    title: `${pick(rng, nth(TOPICS, main)).replace(/^./, (c) => c.toUpperCase())} sync`,
    platform: pick(rng, PLATFORMS),
    createdAt,
    durationSeconds: Math.ceil(nth(used, used.length - 1).endTime),
    segments: used,
    passages: kept,
  };
}

/** Passage counts per account: [small, large, ...others], the others log-normal around the mean. */
function accountSizes(rng: Rng): number[] {
  const others = ACCOUNTS - 2;
  const rest = PASSAGES - SMALL - LARGE;
  const weights = Array.from({ length: others }, () => Math.exp(0.8 * gaussian(rng)));
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((rest * w) / total)));
  let missing = rest - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; missing !== 0; i = (i + 1) % others) {
    const size = nth(sizes, i);
    if (missing > 0) {
      sizes[i] = size + 1;
      missing--;
    } else if (size > 1) {
      sizes[i] = size - 1;
      missing++;
    }
  }
  return [SMALL, LARGE, ...sizes];
}

function makeQueries(rng: Rng): string[] {
  return Array.from({ length: QUERIES }, () => {
    const topic = pick(rng, TOPICS);
    const words = new Set<string>();
    const n = intBetween(rng, 2, 3);
    while (words.size < n) words.add(pick(rng, topic));
    const parts = [...words];
    if (rng() < 0.4) parts.push(pick(rng, FILLER));
    if (rng() < 0.2) parts.push(pick(rng, pick(rng, TOPICS)));
    return parts.join(' ');
  });
}

// ---------------------------------------------------------------------------------------------
// Bulk loading: large multi-row INSERTs of literal SQL straight to the driver.

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const ts = (d: Date) => `'${d.toISOString()}'`;
const vectorText = (v: number[]) => {
  let out = '[';
  for (const [i, x] of v.entries()) out += (i ? ',' : '') + (x === 0 ? '0' : x.toPrecision(7));
  return `${out}]`;
};

async function exec(database: Database, text: string): Promise<void> {
  const client = (database.db as unknown as { $client: unknown }).$client;
  if (database.kind === 'pglite') await (client as { exec(q: string): Promise<unknown> }).exec(text);
  else await (client as { unsafe(q: string): Promise<unknown> }).unsafe(text);
}

const INSERT_ROWS = { meetings: 1000, segments: 2000, passages: 500 };

interface LoadStats {
  accounts: number;
  meetings: number;
  segments: number;
  passages: number;
  generateMs: number;
  embedMs: number;
  insertMs: number;
}

interface MeasuredAccount {
  label: 'small' | 'typical' | 'large';
  id: string;
  key: string;
  passages: number;
}

async function loadCorpus(
  label: string,
  database: Database,
): Promise<{ stats: LoadStats; measured: MeasuredAccount[] }> {
  const rng = mulberry32(SEED);
  const sizes = accountSizes(rng);
  // The typical account: the median size among the others.
  const order = sizes
    .map((s, i) => [s, i] as const)
    .slice(2)
    .sort((a, b) => a[0] - b[0]);
  const typicalIndex = nth(order, Math.floor(order.length / 2))[1];
  const embedder = new LocalEmbedder({ dimensions: DIMENSIONS });
  const stats: LoadStats = {
    accounts: 0,
    meetings: 0,
    segments: 0,
    passages: 0,
    generateMs: 0,
    embedMs: 0,
    insertMs: 0,
  };
  const measured: MeasuredAccount[] = [];
  const runId = Date.now().toString(36);

  // Measured accounts and their keys through the app's own functions; the rest straight in.
  const accountIds: string[] = [];
  const others: string[] = [];
  for (const [i, size] of sizes.entries()) {
    const which = i === 0 ? 'small' : i === 1 ? 'large' : i === typicalIndex ? 'typical' : null;
    if (which) {
      const account = await createAccount(database.db, {
        email: `bench-${which}-${runId}@example.com`,
        plan: 'enterprise',
        earlyAccess: true,
      });
      const { plaintext } = await createApiKey(database.db, { accountId: account.id });
      accountIds.push(account.id);
      measured.push({ label: which, id: account.id, key: plaintext, passages: size });
    } else {
      const id = randomUUID();
      accountIds.push(id);
      others.push(`(${quote(id)}, ${quote(`bench-${i}-${runId}@example.com`)}, 'pro', true)`);
    }
  }
  let started = performance.now();
  for (let i = 0; i < others.length; i += INSERT_ROWS.meetings) {
    await exec(
      database,
      `insert into accounts (id, email, plan, early_access) values ${others.slice(i, i + INSERT_ROWS.meetings).join(',')}`,
    );
  }
  stats.insertMs += performance.now() - started;
  stats.accounts = sizes.length;

  let meetingRows: string[] = [];
  let segmentRows: string[] = [];
  let passageRows: string[] = [];
  let passageTexts: { row: string[]; text: string }[] = [];
  const flush = async (force: boolean) => {
    if (passageTexts.length > 0 && (force || passageTexts.length >= INSERT_ROWS.passages * 4)) {
      let t = performance.now();
      const embedded = await embedEach(embedder, passageTexts, (p) => p.text);
      stats.embedMs += performance.now() - t;
      t = performance.now();
      // Every meeting here is English: its passages' words are read as the service reads them.
      for (const [p, vector] of embedded)
        passageRows.push(
          `(${p.row.join(',')},'${vectorText(vector)}','english',to_tsvector('english', ${p.row[4]}))`,
        );
      passageTexts = [];
      stats.generateMs += performance.now() - t;
    }
    if (!force && passageRows.length < INSERT_ROWS.passages * 4) return;
    const t = performance.now();
    // Parents first: meetings, then their segments and passages.
    for (let i = 0; i < meetingRows.length; i += INSERT_ROWS.meetings) {
      await exec(
        database,
        `insert into meetings (id, account_id, title, platform, language, started_at, ended_at, duration_seconds, created_at, transcribed_at) values ${meetingRows.slice(i, i + INSERT_ROWS.meetings).join(',')}`,
      );
    }
    for (let i = 0; i < segmentRows.length; i += INSERT_ROWS.segments) {
      await exec(
        database,
        `insert into transcript_segments (meeting_id, sequence, speaker, content, start_time, end_time) values ${segmentRows.slice(i, i + INSERT_ROWS.segments).join(',')}`,
      );
    }
    for (let i = 0; i < passageRows.length; i += INSERT_ROWS.passages) {
      await exec(
        database,
        `insert into passages (id, meeting_id, account_id, position, text, first_sequence, last_sequence, model, embedding, text_search_config, search_vector) values ${passageRows.slice(i, i + INSERT_ROWS.passages).join(',')}`,
      );
    }
    stats.insertMs += performance.now() - t;
    meetingRows = [];
    segmentRows = [];
    passageRows = [];
    process.stderr.write(`\r${label}: ${stats.passages}/${PASSAGES} passages stored`);
  };

  const base = Date.parse('2025-01-01T09:00:00Z');
  for (const [a, size] of sizes.entries()) {
    const accountId = nth(accountIds, a);
    let remaining = size;
    const favourites = Array.from({ length: 5 }, () => Math.floor(rng() * TOPICS.length));
    let m = 0;
    while (remaining > 0) {
      const t = performance.now();
      // 8 to 30 passages a meeting (the small account: two meetings of 10).
      let count =
        a === 0 ? Math.min(remaining, Math.ceil(SMALL / 2)) : Math.min(remaining, intBetween(rng, 8, 30));
      if (remaining - count > 0 && remaining - count < 3) count = remaining;
      remaining -= count;
      // Distinct created_at per account, as the app keeps them: meetings an hour and a few
      // seconds apart.
      const createdAt = new Date(base + m++ * 3_600_000 + a * 1000);
      const meeting = makeMeeting(rng, favourites, count, createdAt);
      const startedAt = new Date(createdAt.getTime() - meeting.durationSeconds * 1000);
      meetingRows.push(
        `(${quote(meeting.id)},${quote(accountId)},${quote(meeting.title)},'${meeting.platform}','en',${ts(startedAt)},${ts(createdAt)},${meeting.durationSeconds},${ts(createdAt)},${ts(createdAt)})`,
      );
      for (const s of meeting.segments) {
        segmentRows.push(
          `(${quote(meeting.id)},${s.sequence},${quote(s.speaker)},${quote(s.content)},${s.startTime},${s.endTime})`,
        );
      }
      for (const p of meeting.passages) {
        passageTexts.push({
          row: [
            quote(randomUUID()),
            quote(meeting.id),
            quote(accountId),
            String(p.position),
            quote(p.text),
            String(p.firstSequence),
            String(p.lastSequence),
            quote(embedder.model),
          ],
          text: p.text,
        });
      }
      stats.meetings++;
      stats.segments += meeting.segments.length;
      stats.passages += meeting.passages.length;
      stats.generateMs += performance.now() - t;
      await flush(false);
    }
  }
  await flush(true);
  process.stderr.write('\n');
  // As the app keeps it: the account's last handed-out created_at.
  started = performance.now();
  await exec(
    database,
    `update accounts a set last_meeting_created_at = m.last from (select account_id, max(created_at) as last from meetings group by account_id) m where m.account_id = a.id`,
  );
  stats.insertMs += performance.now() - started;
  return { stats, measured };
}

// ---------------------------------------------------------------------------------------------
// Measuring

const percentileOf = (xs: number[], p: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    p,
  );

interface Hit {
  id: string;
  distance: number;
}

const exactSql = (accountId: string, literal: string, limit: number) => sql`
  select * from (
    select p.id, p.meeting_id, m.title, p.first_sequence, p.last_sequence, p.embedding <=> ${literal}::vector as distance
    from passages p join meetings m on m.id = p.meeting_id where p.account_id = ${accountId} and p.embedding is not null
    offset 0
  ) s order by distance, id limit ${limit}`;

const HALFVEC = values.halfvec;
/** What the HNSW query orders by: the indexed expression (full precision, or --halfvec's). */
const indexedDistance = (literal: string) =>
  HALFVEC
    ? sql`p.embedding::halfvec(${sql.raw(String(DIMENSIONS))}) <=> ${literal}::halfvec(${sql.raw(String(DIMENSIONS))})`
    : sql`p.embedding <=> ${literal}::vector`;

const hnswSql = (accountId: string, literal: string, limit: number) => sql`
  select * from (
    select p.id, p.meeting_id, m.title, p.first_sequence, p.last_sequence, p.embedding <=> ${literal}::vector as distance
    from passages p join meetings m on m.id = p.meeting_id where p.account_id = ${accountId} and p.embedding is not null
    order by ${indexedDistance(literal)} limit ${limit}
  ) s order by distance, id`;

/**
 * The HNSW query with the account's btree made unusable (a cast of account_id) and sequential
 * scans and sorts disabled, so the planner has to go through HNSW even for a small account: what the
 * index alone returns for a selective filter (hnsw.max_scan_tuples caps the iterative scan).
 */
const forcedHnswSql = (accountId: string, literal: string, limit: number) => sql`
  select * from (
    select p.id, p.meeting_id, m.title, p.first_sequence, p.last_sequence, p.embedding <=> ${literal}::vector as distance
    from passages p join meetings m on m.id = p.meeting_id where p.account_id::text = ${accountId} and p.embedding is not null
    order by p.embedding <=> ${literal}::vector limit ${limit}
  ) s order by distance, id`;
const FORCE_SETTINGS = [
  'set local enable_seqscan = off',
  'set local enable_bitmapscan = off',
  'set local enable_sort = off',
];

/** Exactly as vector-search.ts sets them. */
const HNSW_SETTINGS = hnswSettings(HNSW_EF_SEARCH);

/** vectorSearch's first query on every search: does the account have more than exactMaxRows candidates? */
const countSql = (accountId: string, exactMaxRows: number) => sql`
  select count(*)::int as n from (
    select 1 from passages p join meetings m on m.id = p.meeting_id where p.account_id = ${accountId} and p.embedding is not null
    limit ${exactMaxRows + 1}
  ) s`;

async function runExact(db: Db, accountId: string, literal: string): Promise<Hit[]> {
  const rows = await queryRows<{ id: string; distance: number }>(db, exactSql(accountId, literal, K));
  return rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
}

async function runHnsw(
  db: Db,
  accountId: string,
  literal: string,
  opts: { forced?: boolean; efSearch?: number } = {},
): Promise<Hit[]> {
  const forced = opts.forced ?? false;
  return db.transaction(async (tx) => {
    for (const s of [...hnswSettings(opts.efSearch ?? HNSW_EF_SEARCH), ...(forced ? FORCE_SETTINGS : [])])
      await tx.execute(sql.raw(s));
    const rows = await queryRows<{ id: string; distance: number }>(
      tx,
      (forced ? forcedHnswSql : hnswSql)(accountId, literal, K),
    );
    return rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
  });
}

/** How the plan reads passages (an HNSW query the planner may still answer exactly), for the record. */
async function planOf(db: Db, query: SQL, settings: string[]): Promise<string> {
  const lines = await db.transaction(async (tx) => {
    for (const s of settings) await tx.execute(sql.raw(s));
    return queryRows<Record<string, string>>(tx, sql`explain ${query}`);
  });
  const text = lines.map((l) => Object.values(l)[0]).join('\n');
  if (values.explain) progress(text.replace(/'\[[^\]]*\]'::vector/g, "'[…]'::vector"));
  // passages is partitioned by account (migration 0011): the indexes read are a partition's own.
  if (/Index Scan using \S+ on passages\S*/.test(text) && text.includes('Order By: (')) return 'hnsw index';
  if (/passages_(account_idx|p\d+_account_id_idx)/.test(text)) return 'account btree + sort';
  return text.includes('Seq Scan on passages') ? 'seq scan + sort' : 'other';
}

/** Share of the exact top-k that a result list found; a hit tied with the k-th exact distance counts. */
function recall(exact: Hit[], found: { id?: string; distance: number }[]): number {
  const kth = exact.at(-1)?.distance;
  if (kth === undefined) return 1; // nothing to find
  const ids = new Set(exact.map((h) => h.id));
  const good = found
    .slice(0, exact.length)
    .filter((h) => (h.id !== undefined && ids.has(h.id)) || h.distance <= kth + 1e-6).length;
  return good / exact.length;
}

let httpRetries = 0;

/**
 * A GET, retried once (and counted) when the connection fails: with PGlite the database runs on
 * this very thread, so a long query can hold up the event loop past the server's keep-alive
 * time-out and fetch may then send on a pooled connection that is being closed.
 */
async function get(url: string, key: string): Promise<Response> {
  const init = { headers: { authorization: `Bearer ${key}` } };
  try {
    return await fetch(url, init);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    httpRetries++;
    return fetch(url, init);
  }
}

async function timeHttp(url: string, key: string, queries: string[]) {
  const times: number[] = [];
  const results: { distance: number }[][] = [];
  for (let i = -WARM_UP; i < queries.length; i++) {
    const q = nth(queries, (i + queries.length) % queries.length); // warm-up requests first
    const start = performance.now();
    const res = await get(`${url}/v1/notes/search?q=${encodeURIComponent(q)}&limit=${K}`, key);
    const text = await res.text();
    const elapsed = performance.now() - start;
    if (res.status !== 200) throw new Error(`GET /v1/notes/search → ${res.status} ${text}`);
    if (i < 0) continue;
    times.push(elapsed);
    const body = JSON.parse(text) as { data: { score: number }[] };
    results.push(body.data.map((h) => ({ distance: 1 - h.score })));
  }
  return { times, results };
}

async function timeSql(run: (literal: string) => Promise<Hit[]>, literals: string[]) {
  for (let i = 0; i < WARM_UP; i++)
    await run(nth(literals, (literals.length - 1 - i + literals.length) % literals.length));
  const times: number[] = [];
  const results: Hit[][] = [];
  for (const literal of literals) {
    const start = performance.now();
    results.push(await run(literal));
    times.push(performance.now() - start);
  }
  return { times, results };
}

interface ResultRow {
  database: string;
  account: string;
  rows: number;
  path: string;
  'http p50 ms': number | null;
  'http p95 ms': number | null;
  'http min hits': number | null;
  'http recall@10': number | null;
  'sql p50 ms': number;
  'sql p95 ms': number;
  'sql min hits': number;
  'sql recall@10': number;
  'sql plan': string;
  /** vectorSearch's count query at this row's threshold (p50), part of the HTTP time. */
  'count p50 ms': number | null;
}

interface SweepRow {
  database: string;
  account: string;
  rows: number;
  ef_search: number;
  'sql p50 ms': number;
  'sql p95 ms': number;
  'sql min hits': number;
  'sql recall@10': number;
  'sql plan': string;
}

async function timeCount(db: Db, accountId: string, exactMaxRows: number) {
  const run = () => queryRows(db, countSql(accountId, exactMaxRows));
  for (let i = 0; i < WARM_UP; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return round(percentileOf(times, 50));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function bench(label: string, database: Database) {
  httpRetries = 0;
  const phases: Record<string, number | string> = {};
  let started = performance.now();
  // Bulk load without the HNSW index (PGlite inserted ~95 rows/s with it), then build it.
  await exec(database, 'drop index if exists passages_embedding_hnsw');
  const { stats, measured } = await loadCorpus(label, database);
  phases['load s'] = seconds(performance.now() - started);
  phases['generate s'] = seconds(stats.generateMs);
  phases['embed s'] = seconds(stats.embedMs);
  phases['insert s'] = seconds(stats.insertMs);
  phases['insert passages/s'] = Math.round(stats.passages / (stats.insertMs / 1000));

  started = performance.now();
  await exec(database, 'analyze');
  phases['analyze s'] = seconds(performance.now() - started);

  const workMem = values['maintenance-work-mem'] ?? (database.kind === 'pglite' ? '512MB' : '1GB');
  progress(`${label}: building the HNSW index (maintenance_work_mem ${workMem})…`);
  started = performance.now();
  await database.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local maintenance_work_mem = '${workMem.replace(/'/g, '')}'`));
    const params = [
      values['hnsw-m'] ? `m = ${intFlag('hnsw-m', values['hnsw-m'], 2)}` : '',
      values['ef-construction']
        ? `ef_construction = ${intFlag('ef-construction', values['ef-construction'], 4)}`
        : '',
    ].filter(Boolean);
    // Without --hnsw-m / --ef-construction, the index the service builds (migration 0009 and
    // `npm run reindex`: HNSW_BUILD), so the default run measures what production searches.
    const build = params.length ? `with (${params.join(', ')})` : HNSW_BUILD;
    await tx.execute(
      sql.raw(
        HALFVEC
          ? `create index passages_embedding_hnsw on passages using hnsw ((embedding::halfvec(${DIMENSIONS})) halfvec_cosine_ops) ${build}`
          : `create index passages_embedding_hnsw on passages using hnsw (embedding vector_cosine_ops) ${build}`,
      ),
    );
    phases.hnsw = `${params.length ? params.join(', ') : `the service's (${HNSW_BUILD.replace(/^with \(|\)$/g, '')})`}${HALFVEC ? ', halfvec' : ''}`;
  });
  phases['index build s'] = seconds(performance.now() - started);
  phases.maintenance_work_mem = workMem;
  progress(`${label}: index built in ${phases['index build s']} s`);
  const [sizes] = await queryRows<{ table_mb: number; index_mb: number }>(
    database.db,
    // Summed over the partitions (migration 0011): a partitioned table or index has no storage itself.
    sql`select round((select sum(pg_total_relation_size(relid)) from pg_partition_tree('passages')) / 1048576.0)::int as table_mb,
               round((select sum(pg_relation_size(relid)) from pg_partition_tree('passages_embedding_hnsw')) / 1048576.0)::int as index_mb`,
  );

  // Queries
  started = performance.now();
  const queries = makeQueries(mulberry32(SEED + 1));
  const embedder = new LocalEmbedder({ dimensions: DIMENSIONS });
  const literals = (await embedder.embed(queries)).map(toVectorLiteral);
  const services: Services = createServices(
    parseEnv({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_DIMENSIONS: String(DIMENSIONS) }),
  );
  const lowered: Services = { ...services, exactSearchMaxRows: HNSW_THRESHOLD };
  const serve = (s: Services) => {
    // The /v1 facade alone: the settings app's handlers (next-auth) are not needed to search.
    const v1 = createV1Handler({ getDatabase: async () => database, services: s });
    return serveNode((p) => (p === '/v1' || p.startsWith('/v1/') ? v1 : undefined));
  };
  const defaultServer = await serve(services);
  const loweredServer = await serve(lowered);
  const rows: ResultRow[] = [];
  const sweep: SweepRow[] = [];
  try {
    for (const account of [...measured].sort((a, b) => a.passages - b.passages)) {
      progress(`${label}: measuring the ${account.label} account (${account.passages} passages)…`);
      const exact = await timeSql((l) => runExact(database.db, account.id, l), literals);
      const hnsw = await timeSql((l) => runHnsw(database.db, account.id, l), literals);
      const exactPlan = await planOf(database.db, exactSql(account.id, nth(literals, 0), K), []);
      const hnswPlan = await planOf(database.db, hnswSql(account.id, nth(literals, 0), K), HNSW_SETTINGS);
      const httpDefault = await timeHttp(defaultServer.url, account.key, queries);
      const defaultPath = account.passages <= services.exactSearchMaxRows ? 'exact' : 'hnsw';
      const httpRecall = (results: { distance: number }[][]) =>
        round(mean(results.map((r, i) => recall(nth(exact.results, i), r))), 3);
      const minHits = (results: unknown[][]) => Math.min(...results.map((r) => r.length));
      rows.push({
        database: label,
        account: account.label,
        rows: account.passages,
        path: `${defaultPath} (http: default ${services.exactSearchMaxRows})`,
        'http p50 ms': round(percentileOf(httpDefault.times, 50)),
        'http p95 ms': round(percentileOf(httpDefault.times, 95)),
        'http min hits': minHits(httpDefault.results),
        'http recall@10': httpRecall(httpDefault.results),
        'sql p50 ms': round(percentileOf(exact.times, 50)),
        'sql p95 ms': round(percentileOf(exact.times, 95)),
        'sql min hits': minHits(exact.results),
        'sql recall@10': 1,
        'sql plan': exactPlan,
        'count p50 ms': await timeCount(database.db, account.id, services.exactSearchMaxRows),
      });
      // The HNSW path: straight SQL for every account (it shows why small accounts are searched
      // exactly); over HTTP for the accounts above the lowered threshold.
      const overHttp =
        account.passages > HNSW_THRESHOLD ? await timeHttp(loweredServer.url, account.key, queries) : null;
      rows.push({
        database: label,
        account: account.label,
        rows: account.passages,
        path: overHttp ? `hnsw (http: threshold ${HNSW_THRESHOLD})` : 'hnsw (sql only)',
        'http p50 ms': overHttp && round(percentileOf(overHttp.times, 50)),
        'http p95 ms': overHttp && round(percentileOf(overHttp.times, 95)),
        'http min hits': overHttp && minHits(overHttp.results),
        'http recall@10': overHttp && httpRecall(overHttp.results),
        'sql p50 ms': round(percentileOf(hnsw.times, 50)),
        'sql p95 ms': round(percentileOf(hnsw.times, 95)),
        'sql min hits': minHits(hnsw.results),
        'sql recall@10': round(mean(hnsw.results.map((r, i) => recall(nth(exact.results, i), r))), 3),
        'sql plan': hnswPlan,
        'count p50 ms': overHttp && (await timeCount(database.db, account.id, HNSW_THRESHOLD)),
      });
      if (account.label === 'large') {
        for (const efSearch of EF_SWEEP) {
          const run = await timeSql((l) => runHnsw(database.db, account.id, l, { efSearch }), literals);
          sweep.push({
            database: label,
            account: account.label,
            rows: account.passages,
            ef_search: efSearch,
            'sql p50 ms': round(percentileOf(run.times, 50)),
            'sql p95 ms': round(percentileOf(run.times, 95)),
            'sql min hits': minHits(run.results),
            'sql recall@10': round(mean(run.results.map((r, i) => recall(nth(exact.results, i), r))), 3),
            'sql plan': await planOf(
              database.db,
              hnswSql(account.id, nth(literals, 0), K),
              hnswSettings(efSearch),
            ),
          });
        }
      }
      if (hnswPlan !== 'hnsw index') {
        // The planner answered the HNSW query exactly: measure what the index itself would give.
        const forcedPlan = await planOf(database.db, forcedHnswSql(account.id, nth(literals, 0), K), [
          ...HNSW_SETTINGS,
          ...FORCE_SETTINGS,
        ]);
        const forced = await timeSql((l) => runHnsw(database.db, account.id, l, { forced: true }), literals);
        rows.push({
          database: label,
          account: account.label,
          rows: account.passages,
          path: 'hnsw forced (sql only)',
          'http p50 ms': null,
          'http p95 ms': null,
          'http min hits': null,
          'http recall@10': null,
          'sql p50 ms': round(percentileOf(forced.times, 50)),
          'sql p95 ms': round(percentileOf(forced.times, 95)),
          'sql min hits': minHits(forced.results),
          'sql recall@10': round(mean(forced.results.map((r, i) => recall(nth(exact.results, i), r))), 3),
          'sql plan': forcedPlan,
          'count p50 ms': null,
        });
      }
    }
  } finally {
    await defaultServer.close();
    await loweredServer.close();
  }
  phases['queries s'] = seconds(performance.now() - started);
  const corpus = {
    database: label,
    accounts: stats.accounts,
    meetings: stats.meetings,
    segments: stats.segments,
    passages: stats.passages,
    'passages table MB': Number(sizes?.table_mb ?? 0),
    'hnsw index MB': Number(sizes?.index_mb ?? 0),
    ...phases,
    'http retries': httpRetries,
  };
  return { corpus, rows, sweep };
}

const open = async (kind: 'pglite' | 'postgres'): Promise<Database> => {
  const database = await createTestDatabase({ serverUrl: kind === 'pglite' ? null : serverUrl });
  await changeDimensions(database.db, DIMENSIONS); // the migrations make 384
  return database;
};

const kinds = (which === 'both' ? ['pglite', 'postgres'] : [which]) as ('pglite' | 'postgres')[];
if (!serverUrl) progress('(set BENCH_DATABASE_URL to a PostgreSQL server to measure it too)');
progress(
  `Corpus: ${PASSAGES} passages over ${ACCOUNTS} accounts (small ${SMALL}, large ${LARGE}); ${QUERIES} queries; ` +
    `HNSW over HTTP with SEARCH_EXACT_MAX_ROWS=${HNSW_THRESHOLD}`,
);
const output: { corpus: Record<string, unknown>; rows: ResultRow[]; sweep: SweepRow[] }[] = [];
for (const kind of kinds) {
  const database = await open(kind);
  try {
    const result = await bench(kind, database);
    output.push(result);
    console.table([result.corpus]);
    console.table(result.rows);
    if (result.sweep.length > 0) console.table(result.sweep);
  } finally {
    await database.close();
  }
}
console.log(
  JSON.stringify({
    passages: PASSAGES,
    accounts: ACCOUNTS,
    queries: QUERIES,
    k: K,
    hnswThreshold: HNSW_THRESHOLD,
    results: output,
  }),
);
