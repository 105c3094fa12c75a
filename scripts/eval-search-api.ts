// Scores search end to end through /v1/notes/search on a retrieval set (JSON: `passages` with an id
// and a text, `queries` with a text, the id of the passage expected and a kind; DevSet below): each
// passage is recorded as a meeting (its sentences as segments) through the recorder API, and each
// query is asked of Form A; recall@1, recall@5 and MRR per kind, over the distinct notes of the
// hits in order. Also: how soon the meetings became searchable, and the search latency (p50, p95)
// as seen by the client.
//
//   npx tsx scripts/eval-search-api.ts <set.json> --url http://127.0.0.1:3000 --key mn_... [--hour] [--mcp]
//   npm run eval:search [-- --mcp]     (the held-out set, scripts/search-eval/held-out-set.json)
//
// --mcp: asks the queries of the MCP server's search_meetings tool instead of /v1/notes/search.
//
// --hour: then records a one-hour meeting and reports how soon it is searchable, and how fast
// search answers meanwhile.
//
// Without --url it starts the service's handlers in this process over a fresh in-memory PGlite
// (or a fresh database on TEST_DATABASE_URL's PostgreSQL), with the configured embedder (default:
// semantic) and the background worker, as `npm start` has.
import fs from 'node:fs';
import { percentile } from './bench-stats';

interface DevSet {
  passages: { id: string; text: string; lang?: string }[];
  queries: { id: string; text: string; expected: string; kind: string; crossLingual?: boolean }[];
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !args[args.indexOf(a) - 1]?.startsWith('--'));
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
if (!file) {
  console.error('usage: tsx scripts/eval-search-api.ts <set.json> [--url URL --key API_KEY] [--hour]');
  process.exit(2);
}
const set = JSON.parse(fs.readFileSync(file, 'utf8')) as DevSet;

let base = opt('--url');
let key = opt('--key');
let close = async () => {};
if (!base) {
  const { getEnv } = await import('../server/env');
  const { createServices } = await import('../server/services');
  const { createTestDatabase } = await import('../test/support/test-database');
  const { createV1Handler } = await import('../server/rest/v1-handler');
  const { createMcpHandler, MCP_PATH } = await import('../server/mcp/mcp-handler');
  const { createRecorderHandler, RECORDER_PREFIX } = await import('../server/recorder/recorder-handler');
  const { serveNode } = await import('../server/http/serve-node');
  const { startWorker } = await import('../server/worker/worker');
  const { createAccount, createApiKey } = await import('../server/accounts/accounts');
  const { assertDimensions } = await import('../server/search/embedding-dimensions');
  const env = getEnv();
  // TEST_DATABASE_URL: a fresh database on that PostgreSQL server instead.
  const database = await createTestDatabase({ serverUrl: process.env.TEST_DATABASE_URL ?? null });
  await assertDimensions(database.db, env.EMBEDDINGS_DIMENSIONS);
  let worker: { kick(): void; stop(): Promise<void> } | undefined;
  const services = { ...createServices(env), kick: () => worker?.kick() };
  worker = startWorker({
    getDatabase: async () => database,
    services: () => services,
    intervalMs: env.WORKER_INTERVAL_MS,
  });
  const deps = {
    getDatabase: async () => database,
    services,
    cron: { secret: undefined, openWithoutSecret: false },
  };
  const v1 = createV1Handler(deps);
  const recorder = createRecorderHandler(deps);
  const mcp = createMcpHandler(deps);
  const server = await serveNode((path) =>
    path.startsWith(RECORDER_PREFIX)
      ? recorder
      : path.startsWith('/v1')
        ? v1
        : path === MCP_PATH
          ? mcp
          : undefined,
  );
  base = server.url;
  const account = await createAccount(database.db, {
    email: `eval-${Date.now()}@example.com`,
    plan: 'enterprise',
    earlyAccess: true,
    dailyLimit: null,
  });
  key = (await createApiKey(database.db, { accountId: account.id, form: 'A' })).plaintext;
  close = async () => {
    await worker?.stop();
    await server.close();
    await database.close();
  };
}

/** The JSON answer to a request; T is what the server is expected to send (not checked). */
async function call<T = unknown>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(base + path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });
  const json: unknown = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json as T;
}

/** GET /v1/notes/search, Form A: the fields read here. */
type SearchAnswer = { data: { note_id: string }[] };

/** The notes of a query's hits in rank order: from /v1/notes/search, or search_meetings (--mcp). */
async function searchNotes(q: string, limit: number): Promise<string[]> {
  if (!args.includes('--mcp')) {
    const res = await call<SearchAnswer>(`/v1/notes/search?q=${encodeURIComponent(q)}&limit=${limit}`);
    return res.data.map((h) => h.note_id);
  }
  const res = await call<{ result: { structuredContent: { results: { meeting_id: string }[] } } }>('/mcp', {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_meetings', arguments: { query: q, limit: Math.min(limit, 20) } },
    }),
  });
  return res.result.structuredContent.results.map((h) => h.meeting_id);
}

const sentences = (text: string) =>
  text
    .match(/[^.!?]+[.!?]+(\s+|$)|[^.!?]+$/g)
    ?.map((s) => s.trim())
    .filter(Boolean) ?? [];

const noteOf = new Map<string, string>();
const recordedAt = Date.now();
for (const p of set.passages) {
  const { id } = await call<{ id: string }>('/api/recorder/meetings', {
    method: 'POST',
    body: JSON.stringify({ title: `eval ${p.id}`, platform: 'zoom', language: p.lang ?? 'en' }),
  });
  // Five seconds a sentence, one after another.
  const segments = sentences(p.text).map((content, i) => ({
    speaker: i % 2 ? 'B' : 'A',
    content,
    start_time: 5 * i,
    end_time: 5 * i + 5,
  }));
  await call(`/api/recorder/meetings/${id}/transcript`, {
    method: 'POST',
    body: JSON.stringify({ segments, generate_summary: false }),
  });
  noteOf.set(id, p.id);
}
const stored = Date.now();

// Searchable: every meeting's first words find it.
const pending = new Set(set.passages.map((p) => p.id));
while (pending.size) {
  for (const p of set.passages.filter((x) => pending.has(x.id))) {
    const q = p.text.slice(0, 120);
    const res = await call<SearchAnswer>(`/v1/notes/search?q=${encodeURIComponent(q)}&limit=50`);
    if (res.data.some((h) => noteOf.get(h.note_id) === p.id)) pending.delete(p.id);
  }
  if (pending.size) await new Promise((r) => setTimeout(r, 250));
  if (Date.now() - stored > 600_000)
    throw new Error(`not searchable after 10 minutes: ${[...pending].join(', ')}`);
}
const searchable = Date.now();

const groups = new Map<string, { n: number; r1: number; r5: number; mrr: number }>();
const latencies: number[] = [];
for (const q of set.queries) {
  const t0 = performance.now();
  const hits = await searchNotes(q.text, 20);
  latencies.push(performance.now() - t0);
  const ranked = [...new Set(hits.map((id) => noteOf.get(id)))];
  const rank = ranked.indexOf(q.expected) + 1;
  for (const g of [
    q.kind,
    ...(q.kind === 'paraphrase'
      ? [q.crossLingual ? 'paraphrase (cross-lingual)' : 'paraphrase (same language)']
      : []),
  ]) {
    const s = groups.get(g) ?? { n: 0, r1: 0, r5: 0, mrr: 0 };
    s.n++;
    if (rank === 1) s.r1++;
    if (rank >= 1 && rank <= 5) s.r5++;
    if (rank >= 1) s.mrr += 1 / rank;
    groups.set(g, s);
  }
}
// Latency with a warm server: the same queries again.
const warm: number[] = [];
for (const q of set.queries) {
  const t0 = performance.now();
  await searchNotes(q.text, 10);
  warm.push(performance.now() - t0);
}

const sortedWarm = [...warm].sort((a, b) => a - b);
for (const [g, s] of groups) {
  console.log(
    `${g.padEnd(28)} n=${String(s.n).padStart(2)}  recall@1 ${(s.r1 / s.n).toFixed(3)}  recall@5 ${(s.r5 / s.n).toFixed(3)}  MRR ${(s.mrr / s.n).toFixed(3)}`,
  );
}
console.log(
  `recorded ${set.passages.length} meetings in ${((stored - recordedAt) / 1000).toFixed(1)} s; all searchable ${((searchable - stored) / 1000).toFixed(1)} s after the last transcript`,
);
console.log(
  `search latency (client): p50 ${percentile(sortedWarm, 50).toFixed(1)} ms, p95 ${percentile(sortedWarm, 95).toFixed(1)} ms (limit 10, ${warm.length} queries)`,
);

if (args.includes('--hour')) {
  // The goal: a one-hour meeting (about 100 passages, 200 segments, 24,000 characters)
  // searchable within 15 s of its transcript. Its segments are the set's sentences, joined into
  // turns of 110 characters or more, twice over (that makes about 200); it is searchable when a
  // turn of its second half finds it.
  const all = set.passages.flatMap((p) => sentences(p.text));
  const contents: string[] = [];
  for (const round of [1, 2]) {
    let turn = round === 2 ? 'Coming back to it:' : '';
    for (const sentence of all) {
      turn = turn ? `${turn} ${sentence}` : sentence;
      if (turn.length >= 110) {
        contents.push(turn);
        turn = '';
      }
    }
    if (turn) contents.push(turn);
  }
  const segments = contents.map((content, i) => ({
    speaker: i % 2 ? 'B' : 'A',
    content,
    start_time: 18 * i,
    end_time: 18 * i + 18,
  }));
  const { id } = await call<{ id: string }>('/api/recorder/meetings', {
    method: 'POST',
    body: JSON.stringify({ title: 'eval one-hour meeting', platform: 'zoom' }),
  });
  const q = contents[contents.length - 3] ?? '';
  const posted = performance.now();
  await call(`/api/recorder/meetings/${id}/transcript`, {
    method: 'POST',
    body: JSON.stringify({ segments, generate_summary: false }),
  });
  const during: number[] = [];
  let found = false;
  while (!found) {
    const t0 = performance.now();
    const res = await call<SearchAnswer>(`/v1/notes/search?q=${encodeURIComponent(q)}&limit=50`);
    during.push(performance.now() - t0);
    found = res.data.some((h) => h.note_id === id);
    if (!found) await new Promise((r) => setTimeout(r, 100));
    if (performance.now() - posted > 600_000)
      throw new Error('the one-hour meeting was not searchable after 10 minutes');
  }
  const seconds = (performance.now() - posted) / 1000;
  const chars = contents.reduce((n, c) => n + c.length + 1, 0);
  const sortedDuring = [...during].sort((a, b) => a - b);
  console.log(
    `one-hour meeting (${segments.length} segments, ${chars} characters): searchable ${seconds.toFixed(1)} s after its transcript was posted; ` +
      `search meanwhile p50 ${percentile(sortedDuring, 50).toFixed(0)} ms, p95 ${percentile(sortedDuring, 95).toFixed(0)} ms (${during.length} searches)`,
  );
}

console.log(
  `process RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB${opt('--url') ? ' (this client only)' : ' (service in this process)'}`,
);
await close();
