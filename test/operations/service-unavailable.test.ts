import net from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../../server/db/client';
import { FORM_NAMES } from '../../server/domain';
import { AppError } from '../../server/errors';
import { RECORDER_PREFIX, V1_PREFIX } from '../../server/http/api-surfaces';
import { type FetchHandler, serveNode } from '../../server/http/serve-node';
import { createRecorderHandler } from '../../server/recorder/recorder-handler';
import { FORM_PROFILES } from '../../server/rest/form-profiles';
import { createOpenApiDocumentHandler } from '../../server/rest/openapi-document';
import { createV1Handler } from '../../server/rest/v1-handler';
import { createContractValidator } from '../support/openapi-contract';
import { createServices } from '../../server/services';
import { parseEnv } from '../../server/env';

// 503 service_unavailable, "temporarily unavailable; retry with backoff" (docs/rules.md#errors).
// The service says so when its database cannot be reached: a real postgres.js client pointed at
// a port where nothing listens, behind the real handlers, over HTTP.

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let database: Database;
let server: { url: string; close(): Promise<void> };
let validateContract: ReturnType<typeof createContractValidator>;
beforeAll(async () => {
  database = await openPostgres(`postgres://nobody@127.0.0.1:${await closedPort()}/nothing`, { max: 1 });
  const deps = {
    getDatabase: async () => database,
    services: createServices(parseEnv({ EMBEDDINGS_PROVIDER: 'local' })),
  };
  const v1 = createV1Handler(deps);
  const recorder = createRecorderHandler(deps);
  const openapi = createOpenApiDocumentHandler({ trustProxyHops: 0 });
  server = await serveNode((pathname): FetchHandler | undefined =>
    pathname.startsWith(V1_PREFIX)
      ? v1
      : pathname.startsWith(RECORDER_PREFIX)
        ? recorder
        : pathname === '/api/openapi.json'
          ? openapi
          : undefined,
  );
  // No database to ask for a key's form: every request here names its form in X-API-Form.
  validateContract = createContractValidator({ baseUrl: server.url, keyForm: async () => undefined });
});
afterAll(async () => {
  await server?.close();
  await database?.close();
});

/** The message whatever the form's shape: the one string in the body. */
function messageOf(body: unknown): string {
  const strings: string[] = [];
  JSON.stringify(body, (_k, v) => {
    if (typeof v === 'string' && v !== 'service_unavailable') strings.push(v);
    return v;
  });
  return strings[0] ?? '';
}

const key = 'mnk_0123456789abcdefghijklmnopqrstuvwxyzABCD';

describe('a database out of reach is a 503, not a 500', () => {
  it.each(FORM_NAMES.map((f) => [f] as const))(
    'Form %s: GET /v1/notes answers 503 service_unavailable in the form, with Retry-After',
    async (form) => {
      const headers = new Headers({ authorization: `Bearer ${key}`, 'x-api-form': form });
      const res = await fetch(`${server.url}/v1/notes`, { headers });
      expect(res.status).toBe(503);
      // The 503 is what the published document of the form says, headers included.
      await validateContract(
        { method: 'GET', path: '/v1/notes', headers },
        { status: res.status, headers: res.headers, text: await res.clone().text() },
      );
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      const body = await res.json();
      const check = new Ajv2020({ strict: false }).compile(FORM_PROFILES[form].errorSchema);
      expect(check(body)).toBe(true);
      expect(body).toEqual(
        FORM_PROFILES[form].presentError(new AppError('service_unavailable', String(messageOf(body)))).body,
      );
      expect(JSON.stringify(body)).toMatch(/database/);
    },
  );

  it('the recorder API answers 503 in Form A too', async () => {
    const res = await fetch(`${server.url}/api/recorder/meetings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'zoom' }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await res.json()).error.code).toBe('service_unavailable');
  });
});
