import { expect, test } from './fixtures';

// Through the real `npm start` server: the headers every response carries, the per-request CSP of
// pages, and paths that Next's router cannot decode.

const PAGES = ['/', '/sign-in', '/sign-up', '/docs', '/notes', '/keys', '/webhooks', '/account'];

function expectBaseHeaders(headers: Record<string, string>) {
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(headers['permissions-policy']).toContain('camera=()');
  // npm start serves http here: no HSTS unless a TLS proxy says the browser came over https.
  expect(headers['strict-transport-security']).toBeUndefined();
}

function cspNonce(csp: string): string {
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  if (!nonce) throw new Error(`no nonce in ${csp}`);
  return nonce;
}

test('every page has a nonce CSP that forbids framing, and the standard protection headers', {
  tag: '@any-database',
}, async ({ request }) => {
  const nonces = new Set<string>();
  for (const path of PAGES) {
    const res = await request.get(path, { maxRedirects: 0 });
    expect([200, 307], path).toContain(res.status());
    const headers = res.headers();
    expectBaseHeaders(headers);
    const csp = headers['content-security-policy'];
    expect(csp, path).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'self'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'(;|$)/);
    expect(csp).not.toContain('unsafe-eval');
    const nonce = cspNonce(csp!);
    nonces.add(nonce);
    if (res.status() === 200) {
      // Every script Next wrote into the page carries this response's nonce.
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce}"`);
    }
  }
  // A fresh nonce per response.
  expect(nonces.size).toBe(PAGES.length);
});

test('HSTS only when a TLS-terminating proxy says the browser came over https', {
  tag: '@any-database',
}, async ({ request }) => {
  const res = await request.get('/sign-in', { headers: { 'x-forwarded-proto': 'https' } });
  expect(res.headers()['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
  expect(res.headers()['content-security-policy']).toContain('upgrade-insecure-requests');
});

test('the APIs carry the protection headers and no-store, without a page CSP', {
  tag: '@any-database',
}, async ({ request }) => {
  for (const path of [
    '/v1/notes',
    '/api/recorder/meetings',
    '/api/openapi.json',
    '/api/asyncapi.json',
    '/api/recorder/openapi.json',
  ]) {
    const res = await request.get(path);
    expectBaseHeaders(res.headers());
    expect(res.headers()['content-security-policy'], path).toBeUndefined();
  }
  const v1 = await request.get('/v1/notes');
  expect(v1.status()).toBe(401);
  expect(v1.headers()['cache-control']).toBe('no-store');
});

test('a path that does not percent-decode is a 400 in its surface shape with X-Request-Id, never a 500', {
  tag: '@any-database',
}, async ({ request }) => {
  const formA = await request.get('/v1/notes/%FF');
  expect(formA.status()).toBe(400);
  expect(formA.headers()['content-type']).toContain('application/json');
  expect(formA.headers()['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(await formA.json()).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });

  const formB = await request.delete('/v1/webhooks/%E0%A4%A', { headers: { 'x-api-form': 'b' } });
  expect(formB.status()).toBe(400);
  expect(formB.headers()['x-request-id']).toBeTruthy();
  expect(await formB.json()).toEqual({ error: expect.any(String) });

  const recorder = await request.post('/api/recorder/meetings/%C0%AF/transcript', { data: {} });
  expect(recorder.status()).toBe(400);
  expect(await recorder.json()).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });

  for (const path of ['/api/trpc/%FF', '/notes/%FF', '/%C0%AF']) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(400);
    expectBaseHeaders(res.headers());
  }
  // A well-formed escape is just a path: here an unknown note id, so the key decides (401).
  expect((await request.get('/v1/notes/%41')).status()).toBe(401);
});
