// npm run bench:notes [-- --notes 1000 --segments 200 --runs 20]
// Times GET /v1/notes?limit=100 through the real handlers over HTTP, on the embedded database
// and, when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a PostgreSQL server, on PostgreSQL.
import { parseArgs } from 'node:util';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import type { Database } from '../server/db/client';
import { createAppHandlers, routeFor } from '../server/runtime/app-handlers';
import { serveNode } from '../server/http/serve-node';
import { createMeeting } from '../server/meetings/create-meeting';
import { storeTranscript } from '../server/meetings/store-transcript';
import { createTestDatabase } from '../test/support/test-database';
import { percentile } from './bench-stats';
import { createServices } from '../server/services';
import { getEnv } from '../server/env';

const services = createServices(getEnv());

const { values } = parseArgs({
  options: {
    notes: { type: 'string', default: '1000' },
    segments: { type: 'string', default: '200' },
    runs: { type: 'string', default: '20' },
  },
});
const NOTES = Number(values.notes);
const SEGMENTS = Number(values.segments);
const RUNS = Number(values.runs);

async function timeRequests(url: string, key: string, runs: number) {
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const start = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${res.status} ${new TextDecoder().decode(body)}`);
    if (i >= 2) times.push(performance.now() - start); // the first two warm caches up
  }
  return times.sort((a, b) => a - b);
}

async function bench(label: string, database: Database) {
  const account = await createAccount(database.db, {
    email: `bench-${Date.now()}@example.com`,
    plan: 'enterprise',
    earlyAccess: true,
  });
  const { plaintext: key } = await createApiKey(database.db, { accountId: account.id });
  const started = performance.now();
  for (let i = 0; i < NOTES; i++) {
    const { id } = await createMeeting(database.db, services, account.id, {
      title: `Bench meeting ${i}`,
      platform: 'zoom',
    });
    await storeTranscript(database.db, services, account.id, id, {
      durationSeconds: SEGMENTS * 6,
      segments: Array.from({ length: SEGMENTS }, (_, s) => ({
        speaker: `Speaker ${s % 4}`,
        content: `Segment ${s} of meeting ${i}: we reviewed the roadmap, the budget and the next release in some detail.`,
        startTime: s * 6,
        endTime: s * 6 + 5.5,
      })),
    });
    if ((i + 1) % 50 === 0 || i + 1 === NOTES)
      process.stderr.write(`\r${label}: ${i + 1}/${NOTES} notes stored`);
  }
  const ingestSeconds = (performance.now() - started) / 1000;
  process.stderr.write('\n');

  const handlers = createAppHandlers({
    getDatabase: async () => database,
    services,
    cron: { secret: undefined, openWithoutSecret: false },
  });
  const server = await serveNode((p) => routeFor(handlers, p));
  try {
    const page = await timeRequests(`${server.url}/v1/notes?limit=100`, key, RUNS);
    const one = await timeRequests(`${server.url}/v1/notes?limit=1`, key, RUNS);
    const p50 = percentile(page, 50);
    return {
      database: label,
      notes: NOTES,
      segments_per_note: SEGMENTS,
      ingest_notes_per_second: Math.round(NOTES / ingestSeconds),
      'limit=100 p50 ms': +p50.toFixed(1),
      'limit=100 p95 ms': +percentile(page, 95).toFixed(1),
      'limit=1 p50 ms': +percentile(one, 50).toFixed(1),
      'ratio limit=100 / limit=1 (p50)': +(p50 / percentile(one, 50)).toFixed(1),
    };
  } finally {
    await server.close();
  }
}

const results = [];
const embedded = await createTestDatabase({ serverUrl: null });
try {
  results.push(await bench('pglite', embedded));
} finally {
  await embedded.close();
}
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (serverUrl) {
  const pg = await createTestDatabase({ serverUrl });
  try {
    results.push(await bench('postgres', pg));
  } finally {
    await pg.close();
  }
} else {
  console.error('(set BENCH_DATABASE_URL to a PostgreSQL server to measure it too)');
}
console.table(results);
console.log(JSON.stringify(results));
