import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { Db } from '../db/client';
import { AppError, type ErrorCode } from '../errors';
import { refuseUnstorableInput } from '../http/storable-input';
import { log } from '../log';
import type { Services } from '../services';

// The settings app's tRPC: session-authenticated procedures over the same services as /v1.

export interface UiContext {
  db: Db;
  services: Services;
  /** The signed-in account, or null. */
  accountId: string | null;
  /** Who is asking, for the sign-up throttle (client-address.ts), or null when unknown. */
  clientAddress: string | null;
  /** The request's id, in log lines and the X-Request-Id header. */
  requestId?: string;
  /** Whether the call came in a batch of calls (`?batch=1`), which some procedures refuse. */
  batched?: boolean;
  /** The clock of the throttles' windows (tests move it). */
  now?(): Date;
}

const TRPC_CODE: Record<ErrorCode, TRPCError['code']> = {
  invalid_request: 'BAD_REQUEST',
  invalid_api_key: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  validation_error: 'BAD_REQUEST',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  rate_limited: 'TOO_MANY_REQUESTS',
  internal_error: 'INTERNAL_SERVER_ERROR',
  service_unavailable: 'SERVICE_UNAVAILABLE',
};

const t = initTRPC.context<UiContext>().create({
  // Messages of our own errors and of input validation reach the UI; anything else is generic.
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const message =
      cause instanceof AppError
        ? cause.message
        : cause instanceof ZodError
          ? (cause.issues[0]?.message ?? 'Invalid input')
          : error.code === 'INTERNAL_SERVER_ERROR'
            ? 'Something went wrong; please try again'
            : error.message;
    return { ...shape, message, data: { ...shape.data, stack: undefined } };
  },
});

/** AppErrors thrown by services become tRPC errors with the matching code. */
const mapErrors = t.middleware(async ({ ctx, next, path }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError)
      throw new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause });
    if (result.error.code === 'INTERNAL_SERVER_ERROR')
      log.error('ui procedure failed', { requestId: ctx.requestId, path, err: cause ?? result.error });
  }
  return result;
});

/** NUL or an unpaired surrogate anywhere in the input is a 400 naming the field (storable-input.ts). */
const refuseUnstorable = t.middleware(async ({ getRawInput, next }) => {
  await refuseUnstorableInput(getRawInput);
  return next();
});

export const createUiRouter = t.router;
export const publicProcedure = t.procedure.use(refuseUnstorable).use(mapErrors);

/**
 * A call that must come alone, not in a batch: the procedures anyone can call that send email or
 * spend a throttle (sign-up, password reset, verification links). Otherwise one request could
 * carry ten sign-ups, each doing its work before any throttle saw the next.
 */
export const callAlone = t.middleware(({ ctx, next }) => {
  if (ctx.batched)
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'Send this request on its own, not in a batch' });
  return next();
});

/** Only for a signed-in account; ctx.accountId is then that account, and every query is scoped by it. */
export const accountProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.accountId) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Please sign in' });
  return next({ ctx: { ...ctx, accountId: ctx.accountId } });
});

export const createCallerFactory = t.createCallerFactory;
