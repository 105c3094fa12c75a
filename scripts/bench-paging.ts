// npm run bench:paging [-- --notes 10000 --runs 30]
// Is paging flat? One account of --notes notes (two segments each); the list is walked to its end
// once in each form (pages of 100) for the cursor of the last hundred notes, then
// `GET /v1/notes?limit=20` at the first page and at that depth are timed alternately (--runs each)
// through the real handlers over HTTP.
// Prints last ÷ first (p50) per form and database; the goal is at most 1.2. On the embedded
// database, and on PostgreSQL when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a server.
import { parseArgs } from 'node:util';
import { createAccount, createApiKey } from '../server/accounts/accounts';
import type { Database } from '../server/db/client';
import { parseEnv } from '../server/env';
import { serveNode } from '../server/http/serve-node';
import { createMeeting } from '../server/meetings/create-meeting';
import { storeTranscript } from '../server/meetings/store-transcript';
import { createAppHandlers, routeFor } from '../server/runtime/app-handlers';
import { createServices } from '../server/services';
import { createTestDatabase } from '../test/support/test-database';
import { percentile } from './bench-stats';

// The word-matching embedder: the notes' transcripts are indexed inline, no model is loaded.
const services = createServices(parseEnv({ ...process.env, EMBEDDINGS_PROVIDER: 'local' }));

const { values } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '30' },
  },
});
const NOTES = Number(values.notes);
const RUNS = Number(values.runs);
const LIMIT = 20;

type Page = { data: unknown[]; next_cursor: string | null; has_more: boolean };

/**
 * Form B allows 100 requests a minute per key: the bench takes a fresh key of the account
 * every 90 requests, so no request is refused and none waits.
 */
function keyPool(database: Database, accountId: string) {
  let key = '';
  let used = 90;
  return async () => {
    if (used >= 90) {
      key = (await createApiKey(database.db, { accountId })).plaintext;
      used = 0;
    }
    used++;
    return key;
  };
}

async function get(url: string, key: string, form: 'A' | 'B'): Promise<Page> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, 'x-api-form': form } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body}`);
  return JSON.parse(body) as Page;
}

async function bench(label: string, database: Database) {
  const account = await createAccount(database.db, {
    email: `bench-paging-${Date.now()}@example.com`,
    plan: 'enterprise',
    earlyAccess: true,
    dailyLimit: null,
  });
  const nextKey = keyPool(database, account.id);
  for (let i = 0; i < NOTES; i++) {
    const { id } = await createMeeting(database.db, services, account.id, {
      title: `Paging meeting ${i}`,
      platform: 'zoom',
    });
    await storeTranscript(database.db, services, account.id, id, {
      durationSeconds: 12,
      segments: [0, 1].map((s) => ({
        speaker: `Speaker ${s}`,
        content: `Segment ${s} of meeting ${i}.`,
        startTime: s * 6,
        endTime: s * 6 + 5.5,
      })),
    });
    if ((i + 1) % 500 === 0 || i + 1 === NOTES)
      process.stderr.write(`\r${label}: ${i + 1}/${NOTES} notes stored`);
  }
  process.stderr.write('\n');

  const handlers = createAppHandlers({
    getDatabase: async () => database,
    services,
    cron: { secret: undefined, openWithoutSecret: false },
  });
  const server = await serveNode((p) => routeFor(handlers, p));
  const rows: Record<string, string | number>[] = [];
  try {
    for (const form of ['A', 'B'] as const) {
      const first = `${server.url}/v1/notes?limit=${LIMIT}`;
      // Walk to the end in pages of 100 for the cursor of the last hundred notes; the page timed
      // there is LIMIT notes at depth NOTES − 100.
      const walk = `${server.url}/v1/notes?limit=100`;
      let url = walk;
      let last = first;
      let pages = 0;
      for (;;) {
        const page = await get(url, await nextKey(), form);
        pages++;
        if (!page.has_more || !page.next_cursor) break;
        url = `${walk}&cursor=${encodeURIComponent(page.next_cursor)}`;
        last = `${first}&cursor=${encodeURIComponent(page.next_cursor)}`;
      }
      const times = { first: [] as number[], last: [] as number[] };
      for (let i = 0; i < RUNS + 2; i++) {
        for (const which of i % 2 ? (['last', 'first'] as const) : (['first', 'last'] as const)) {
          const started = performance.now();
          await get(which === 'first' ? first : last, await nextKey(), form);
          if (i >= 2) times[which].push(performance.now() - started); // two rounds warm up
        }
      }
      const p50 = (xs: number[]) =>
        percentile(
          [...xs].sort((a, b) => a - b),
          50,
        );
      rows.push({
        database: label,
        form,
        notes: NOTES,
        'depth of the last page': (pages - 1) * 100,
        'first page p50 ms': +p50(times.first).toFixed(2),
        'last page p50 ms': +p50(times.last).toFixed(2),
        'last ÷ first': +(p50(times.last) / p50(times.first)).toFixed(2),
      });
    }
  } finally {
    await server.close();
  }
  return rows;
}

const results = [];
const which = process.env.BENCH_DB ?? 'both';
if (which !== 'postgres') {
  const embedded = await createTestDatabase({ serverUrl: null });
  try {
    results.push(...(await bench('pglite', embedded)));
  } finally {
    await embedded.close();
  }
}
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (serverUrl && which !== 'pglite') {
  const pg = await createTestDatabase({ serverUrl });
  try {
    results.push(...(await bench('postgres', pg)));
  } finally {
    await pg.close();
  }
} else if (!serverUrl) {
  console.error('(set BENCH_DATABASE_URL to a PostgreSQL server to measure it too)');
}
console.table(results);
console.log(JSON.stringify(results));
