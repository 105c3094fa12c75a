// npm run bench:fairness [-- --import 300 --segments 10 --probes 20 --every 3 --db pglite|postgres]
// Whether one account's bulk import holds back another account's new meetings. One account
// records --import meetings of --segments segments through the recorder API as fast as it takes
// them; once a tenth of them is in, a second account records --probes meetings, one every --every
// seconds, each with a generated summary and a webhook endpoint (a receiver on 127.0.0.1) for
// summary.ready. Reports, for the second account's meetings, the time from the transcript's 200
// to searchable (its embedding done) and to summary.ready received, p50/p95/max, and how much of
// the import was still waiting when the last probe was searchable. The default semantic
// embedder and the in-process worker, as `npm start` runs them. PostgreSQL: BENCH_DATABASE_URL
// or TEST_DATABASE_URL.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import { jobs } from '../server/db/schema';
import { assertDimensions } from '../server/search/embedding-dimensions';
import { parseEnv } from '../server/env';
import { serveNode } from '../server/http/serve-node';
import { createAppHandlers, routeFor } from '../server/runtime/app-handlers';
import { createServices, embeddingThreads, type Services } from '../server/services';
import { startWorker } from '../server/worker/worker';
import { createTestDatabase } from '../test/support/test-database';
import { Receiver } from '../test/support/webhook-receiver';
import { percentile } from './bench-stats';
import { benchSegments } from './bench-transcripts';

const { values } = parseArgs({
  options: {
    import: { type: 'string', default: '300' },
    segments: { type: 'string', default: '10' },
    probes: { type: 'string', default: '20' },
    every: { type: 'string', default: '3' },
    db: { type: 'string', default: 'pglite' },
  },
});
const IMPORT = Number(values.import);
const SEGMENTS = Number(values.segments);
const PROBES = Number(values.probes);
const EVERY_MS = Number(values.every) * 1000;
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (values.db === 'postgres' && !serverUrl)
  throw new Error('--db postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');

const segmentsOf = (meeting: number) => benchSegments(meeting, SEGMENTS);
const round = (v: number) => Math.round(v);
const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    max: round(sorted.at(-1) ?? 0),
  };
};

const database = await createTestDatabase({ serverUrl: values.db === 'postgres' ? serverUrl : null });
let worker: ReturnType<typeof startWorker> | null = null;
const env = parseEnv({ EMBEDDINGS_PROVIDER: 'semantic', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
// The database takes the model's dimensions, as the server's start does.
await assertDimensions(database.db, env.EMBEDDINGS_DIMENSIONS);
const services: Services = { ...createServices(env), kick: () => worker?.kick() };
const handlers = createAppHandlers({
  getDatabase: async () => database,
  services,
  cron: { secret: undefined, openWithoutSecret: false },
});
const server = await serveNode((p) => routeFor(handlers, p));
const receiver = new Receiver();
await receiver.start();

const newAccount = async (name: string) => {
  const account = await createAccount(database.db, {
    email: `${name}-${Date.now()}@example.com`,
    plan: 'enterprise',
    earlyAccess: true,
  });
  const { plaintext } = await createApiKey(database.db, { accountId: account.id });
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${plaintext}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
    return JSON.parse(text) as { id?: string };
  };
  const record = async (title: string, n: number, generateSummary: boolean) => {
    const { id } = await call('/api/recorder/meetings', { title, platform: 'zoom' });
    await call(`/api/recorder/meetings/${id}/transcript`, {
      segments: segmentsOf(n),
      generate_summary: generateSummary,
    });
    return id as string;
  };
  return { account, call, record };
};

// The model loads once, before anything is measured.
await services.embedder.embed(['warm up']);
worker = startWorker({ getDatabase: async () => database, services: () => services, intervalMs: 1000 });

const big = await newAccount('import');
const small = await newAccount('probe');
await small.call('/v1/webhooks', { url: `${receiver.base}/hooks`, events: ['summary.ready'] });

const waiting = async (accountId: string) =>
  new Set(
    (
      await database.db
        .select({ meeting: jobs.meetingId })
        .from(jobs)
        .where(and(eq(jobs.accountId, accountId), eq(jobs.kind, 'embed_transcript')))
    ).map((r) => r.meeting),
  );

process.stderr.write(
  `bench:fairness: ${values.db}, ${embeddingThreads(env)} model thread(s); one account imports ${IMPORT} meetings of ${SEGMENTS} segments, another records ${PROBES}, one every ${EVERY_MS / 1000} s\n`,
);
let imported = 0;
const started = performance.now();
const importing = (async () => {
  for (; imported < IMPORT; imported++) await big.record(`Import ${imported}`, imported, true);
})();
while (imported < Math.ceil(IMPORT / 10)) await new Promise((r) => setTimeout(r, 100));

const recordedAt = new Map<string, number>();
const searchableAt = new Map<string, number>();
const summarisedAt = new Map<string, number>();
const backlogAtProbe: number[] = [];
let probing = true;
/** Stop waiting for the probes this long after they started. */
const giveUpAt = performance.now() + PROBES * EVERY_MS + 10 * 60_000;
const watcher = (async () => {
  while (probing || searchableAt.size < recordedAt.size || summarisedAt.size < recordedAt.size) {
    const pending = await waiting(small.account.id);
    const now = performance.now();
    for (const id of recordedAt.keys())
      if (!pending.has(id) && !searchableAt.has(id)) searchableAt.set(id, now);
    for (const r of receiver.received) {
      const meeting = (JSON.parse(r.body) as { data?: { id?: string } }).data?.id;
      if (meeting && recordedAt.has(meeting) && !summarisedAt.has(meeting))
        summarisedAt.set(meeting, performance.now() - (Date.now() - r.at));
    }
    if (performance.now() > giveUpAt) {
      process.stderr.write(
        `gave up waiting: ${recordedAt.size - searchableAt.size} probe(s) not searchable, ${recordedAt.size - summarisedAt.size} without summary.ready\n`,
      );
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
})();
const progress = setInterval(
  () =>
    process.stderr.write(
      `  ${imported}/${IMPORT} imported, probes: ${recordedAt.size} recorded, ${searchableAt.size} searchable, ${summarisedAt.size} summary.ready received\n`,
    ),
  10_000,
);
for (let i = 0; i < PROBES; i++) {
  const next = performance.now() + EVERY_MS;
  backlogAtProbe.push((await waiting(big.account.id)).size);
  const id = await small.record(`Probe ${i}`, 1000 + i, true);
  recordedAt.set(id, performance.now());
  await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
}
probing = false;
await watcher;
clearInterval(progress);
const importLeft = (await waiting(big.account.id)).size;
const probeSeconds = (performance.now() - started) / 1000;
await importing;
await worker.stop();
const searchable = [...recordedAt].map(([id, at]) => (searchableAt.get(id) ?? Number.NaN) - at);
const summarised = [...recordedAt].map(([id, at]) => (summarisedAt.get(id) ?? Number.NaN) - at);
const result = {
  database: values.db,
  model_threads: embeddingThreads(env),
  import_meetings: IMPORT,
  segments: SEGMENTS,
  probes: PROBES,
  import_recorded_when_probes_done: imported,
  import_waiting_at_probes: { min: Math.min(...backlogAtProbe), max: Math.max(...backlogAtProbe) },
  import_waiting_when_probes_done: importLeft,
  seconds: Math.round(probeSeconds),
  probe_searchable_ms: stats(searchable),
  probe_summary_ready_delivered_ms: stats(summarised),
};
console.log(
  `probe meetings (another account, while the import waits with ${result.import_waiting_at_probes.min}–${result.import_waiting_at_probes.max} meetings to embed):\n` +
    `  searchable after        p50 ${result.probe_searchable_ms.p50} ms, p95 ${result.probe_searchable_ms.p95} ms, max ${result.probe_searchable_ms.max} ms\n` +
    `  summary.ready delivered p50 ${result.probe_summary_ready_delivered_ms.p50} ms, p95 ${result.probe_summary_ready_delivered_ms.p95} ms, max ${result.probe_summary_ready_delivered_ms.max} ms\n` +
    `  import still waiting when the last probe was done: ${importLeft} of ${IMPORT}`,
);
console.log(JSON.stringify(result));
await receiver.close();
await server.close();
await database.close();
process.exit(0);
