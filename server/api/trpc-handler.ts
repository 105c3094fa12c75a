import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { AuthSettings } from '../auth/auth-options';
import { clientAddress } from '../auth/client-address';
import { sessionAccountId } from '../auth/request-session';
import type { Database } from '../db/client';
import type { FetchHandler } from '../http/serve-node';
import { readLimitedBody } from '../http/read-limited-body';
import type { Services } from '../services';
import { appRouter } from './root';

export const TRPC_PREFIX = '/api/trpc';
/** The settings app's mutations are forms of a few fields: 64 KiB is plenty. */
export const TRPC_MAX_BODY_BYTES = 64 * 1024;
/** Calls in one batched request; the settings app's client batches no more (components/providers.tsx). */
export const TRPC_MAX_BATCH_SIZE = 10;

export interface TrpcDeps {
  getDatabase(): Promise<Database>;
  services: Services;
  auth: AuthSettings;
  /** The throttles' clock; tests move it. */
  now?(): Date;
}

/** A body stream that fails as tRPC reads it, so tRPC answers 413 in its own envelope. */
function unreadableBody(code: 'PAYLOAD_TOO_LARGE' | 'BAD_REQUEST') {
  const message =
    code === 'PAYLOAD_TOO_LARGE'
      ? `The request body is larger than ${TRPC_MAX_BODY_BYTES} bytes`
      : 'The request body could not be read';
  return new ReadableStream({ start: (controller) => controller.error(new TRPCError({ code, message })) });
}

/**
 * /api/trpc/* – the settings app's procedures, scoped to the signed-in account, as a fetch
 * handler that needs no Next request context (the session comes from the cookie, see
 * request-session.ts). The body is read within TRPC_MAX_BODY_BYTES as it streams in, and a batch
 * holds at most TRPC_MAX_BATCH_SIZE calls; both are refused in tRPC's error envelope.
 */
export function createTrpcHandler(deps: TrpcDeps): FetchHandler {
  return async (request) => {
    const requestId = randomUUID();
    let req = request;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const read = await readLimitedBody(request, TRPC_MAX_BODY_BYTES);
      const headers = new Headers(request.headers);
      headers.delete('content-length');
      // Oversized is oversized whatever it claims to be: tRPC reads (and so refuses) only JSON.
      if (!read.ok) headers.set('content-type', 'application/json');
      req = new Request(request.url, {
        method: request.method,
        headers,
        body: read.ok
          ? read.bytes
          : unreadableBody(read.reason === 'too-large' ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST'),
        duplex: 'half',
      } as RequestInit);
    }
    const { db } = await deps.getDatabase();
    const response = await fetchRequestHandler({
      endpoint: TRPC_PREFIX,
      req,
      router: appRouter,
      maxBatchSize: TRPC_MAX_BATCH_SIZE,
      createContext: async ({ info }) => ({
        db,
        services: deps.services,
        accountId: await sessionAccountId(db, request, deps.auth.secret),
        clientAddress: clientAddress(request.headers, deps.auth.trustProxyHops),
        requestId,
        batched: info.isBatchCall,
        now: deps.now ?? (() => new Date()),
      }),
    });
    response.headers.set('X-Request-Id', requestId);
    return response;
  };
}
