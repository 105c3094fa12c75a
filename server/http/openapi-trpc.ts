import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Db } from '../db/client';
import type { ErrorCode } from '../errors';
import type { Services } from '../services';

/** What every REST procedure knows about its request once the facade has let it through. */
export interface RestContext {
  db: Db;
  services: Services;
  accountId: string;
  keyId: string;
  requestId: string;
}

/** The context of a request whose key (principal) the facade has authenticated. */
export function restContext(
  db: Db,
  services: Services,
  principal: { account: { id: string }; key: { id: string } },
  requestId: string,
): RestContext {
  return { db, services, accountId: principal.account.id, keyId: principal.key.id, requestId };
}

export type RestMeta = {
  /** The success status (default 200) and the error codes this operation can answer with. */
  rest?: { status?: 200 | 201 | 204; errors: ErrorCode[] };
};

const t = initTRPC.context<RestContext>().meta<OpenApiMeta<RestMeta>>().create({
  // The facade writes error bodies itself (per form); tRPC's own shape never reaches a client.
  isDev: false,
});

export const router = t.router;
/**
 * Every /v1 and recorder procedure. They are called only through the dispatcher
 * (openapi-dispatch.ts), which refuses NUL or an unpaired surrogate anywhere in the input (query
 * or body) with a 400 invalid_request naming the field, before any of them runs
 * (storable-input.ts).
 */
export const restProcedure = t.procedure;
