import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDER_MAX_BODY_BYTES } from '../../server/recorder/recorder-handler';
import { V1_MAX_BODY_BYTES } from '../../server/rest/v1-handler';
import { startTestApp, type TestApp } from '../support/test-app';

// /v1 and the recorder API read at most their cap of a request body, counted while it streams in,
// and answer 413 in the surface's shape. The test server streams bodies to the handlers as `next
// start` does (server/http/serve-node.ts).

let app: TestApp;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  app = await startTestApp();
  keyA = (await app.createAccount({ form: 'A' })).key;
  keyB = (await app.createAccount({ form: 'B' })).key;
});

afterAll(async () => {
  await app?.close();
});

interface Streamed {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
  /** Bytes written before the answer arrived. */
  sentBeforeAnswer: number;
  /** Whether the client had sent its whole body (and ended it) before the answer arrived. */
  finishedBeforeAnswer: boolean;
}

/**
 * POSTs up to `total` bytes in 64 KiB chunks without Content-Length (chunked), waiting for each
 * chunk to drain, and stops as soon as the answer arrives: a server that buffers the whole body
 * before answering only answers after the client has finished.
 */
function streamChunked(
  path: string,
  opts: { key: string; total: number; headers?: Record<string, string> },
): Promise<Streamed> {
  const url = new URL(app.url);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Promise((resolve, reject) => {
    let sent = 0;
    let finished = false;
    let answered = false;
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path,
      method: 'POST',
      headers: {
        authorization: `Bearer ${opts.key}`,
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        ...opts.headers,
      },
    });
    req.on('response', (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      const finishedBeforeAnswer = finished;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          json: text ? JSON.parse(text) : undefined,
          sentBeforeAnswer,
          finishedBeforeAnswer,
        });
        req.destroy();
      });
    });
    // Once answered, the server closes the connection: writes after that may fail, as they should.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const pump = async () => {
      req.write('{"url":"');
      while (!answered && sent < opts.total) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          await new Promise<void>((r) => {
            const done = () => {
              req.off('drain', done).off('close', done);
              r();
            };
            req.on('drain', done).on('close', done);
          });
        }
      }
      if (!answered) {
        finished = true;
        req.end('"}');
      }
    };
    pump().catch(reject);
  });
}

/** POSTs a body of exactly `size` bytes with Content-Length (padded JSON). */
function postSized(path: string, key: string, json: object, size: number) {
  const text = JSON.stringify(json);
  expect(size).toBeGreaterThanOrEqual(text.length);
  const body = `${text.slice(0, -1)}${' '.repeat(size - text.length)}}`;
  expect(Buffer.byteLength(body)).toBe(size);
  return app.request(path, { method: 'POST', key, body, headers: { 'content-type': 'application/json' } });
}

const SEGMENTS = [{ speaker: 'Ana', content: 'Hello.', start_time: 0, end_time: 1 }];

describe("/v1 bodies are capped while they stream in (413 in the form's shape)", () => {
  it('a chunked /v1 body past the cap is answered 413 payload_too_large (Form A) before the client has sent it all', async () => {
    const res = await streamChunked('/v1/webhooks', { key: keyA, total: 64 * 1024 * 1024 });
    expect({ status: res.status, body: res.json }).toEqual({
      status: 413,
      body: {
        error: { code: 'payload_too_large', message: expect.stringContaining(String(V1_MAX_BODY_BYTES)) },
      },
    });
    expect(res.finishedBeforeAnswer).toBe(false);
    expect(res.sentBeforeAnswer).toBeLessThan(64 * 1024 * 1024);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('the same in Form B: 413 {"error": "..."} (a Form B key, and a Form A key with X-API-Form: B)', async () => {
    for (const [key, headers] of [
      [keyB, {}],
      [keyA, { 'x-api-form': 'B' }],
    ] as const) {
      const res = await streamChunked('/v1/webhooks', { key, total: 64 * 1024 * 1024, headers });
      expect({ status: res.status, body: res.json }).toEqual({
        status: 413,
        body: { error: expect.stringContaining('larger than') },
      });
      expect(res.finishedBeforeAnswer).toBe(false);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('a declared Content-Length past the cap is refused before any of the body is read', async () => {
    const url = new URL(app.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({
        host: url.hostname,
        port: url.port,
        path: '/v1/webhooks',
        method: 'POST',
        headers: {
          authorization: `Bearer ${keyA}`,
          'content-type': 'application/json',
          'content-length': String(100 * 1024 * 1024),
        },
      });
      req.on('response', (r) => {
        let body = '';
        r.on('data', (d) => (body += d));
        r.on('end', () => resolve({ status: r.statusCode!, body }));
      });
      req.on('error', reject);
      req.write('{"url":');
    });
    expect({ status: res.status, body: JSON.parse(res.body) }).toEqual({
      status: 413,
      body: { error: { code: 'payload_too_large', message: expect.any(String) } },
    });
  });

  it('a body of exactly the cap is read (then validated as usual); one byte more is 413', async () => {
    const url = { url: 'https://example.com/hook' };
    const atCap = await postSized('/v1/webhooks', keyA, url, V1_MAX_BODY_BYTES);
    expect(atCap.status).not.toBe(413);
    expect(atCap.status).toBeLessThan(500);
    const over = await postSized('/v1/webhooks', keyA, url, V1_MAX_BODY_BYTES + 1);
    expect({ status: over.status, body: over.json }).toEqual({
      status: 413,
      body: { error: { code: 'payload_too_large', message: expect.any(String) } },
    });
  });
});

describe('recorder bodies are capped the same way, with Form A error bodies', () => {
  it('a chunked recorder body past the cap is 413 payload_too_large before the client has sent it all, and nothing is stored', async () => {
    const created = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key: keyA,
      json: { platform: 'zoom' },
    });
    const res = await streamChunked(`/api/recorder/meetings/${created.json.id}/transcript`, {
      key: keyA,
      total: RECORDER_MAX_BODY_BYTES + 64 * 1024 * 1024,
    });
    expect({ status: res.status, body: res.json }).toEqual({
      status: 413,
      body: { error: { code: 'payload_too_large', message: expect.any(String) } },
    });
    expect(res.finishedBeforeAnswer).toBe(false);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-store');
    // The meeting has no transcript: it can still be given one.
    const after = await app.request(`/api/recorder/meetings/${created.json.id}/transcript`, {
      method: 'POST',
      key: keyA,
      json: { segments: SEGMENTS, generate_summary: false },
    });
    expect(after.status).toBe(200);
  });

  it('a transcript of exactly the recorder cap is stored; one byte more is 413', async () => {
    const a = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key: keyA,
      json: { platform: 'zoom' },
    });
    const ok = await postSized(
      `/api/recorder/meetings/${a.json.id}/transcript`,
      keyA,
      { segments: SEGMENTS, generate_summary: false },
      RECORDER_MAX_BODY_BYTES,
    );
    expect(ok.status).toBe(200);
    const b = await app.request('/api/recorder/meetings', {
      method: 'POST',
      key: keyA,
      json: { platform: 'zoom' },
    });
    const over = await postSized(
      `/api/recorder/meetings/${b.json.id}/transcript`,
      keyA,
      { segments: SEGMENTS },
      RECORDER_MAX_BODY_BYTES + 1,
    );
    expect({ status: over.status, body: over.json }).toEqual({
      status: 413,
      body: { error: { code: 'payload_too_large', message: expect.any(String) } },
    });
  });

  it('four oversized chunked uploads at once are all refused, and the server answers normally afterwards', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        i % 2
          ? streamChunked('/v1/webhooks', { key: keyA, total: 128 * 1024 * 1024 })
          : streamChunked('/api/recorder/meetings', { key: keyA, total: 128 * 1024 * 1024 }),
      ),
    );
    expect(results.map((r) => [r.status, r.finishedBeforeAnswer])).toEqual(Array(4).fill([413, false]));
    const res = await app.request('/v1/notes', { key: keyA });
    expect(res.status).toBe(200);
  });
});
