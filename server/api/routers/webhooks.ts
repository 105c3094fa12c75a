import { z } from 'zod';
import { DEFAULT_FORM, FORM_NAMES, WEBHOOK_EVENTS } from '../../domain';
import { FORM_PROFILES } from '../../rest/form-profiles';
import { decodeCursor, encodeCursor } from '../../http/opaque-cursor';
import {
  deleteEndpointOrThrow,
  getEndpointOrThrow,
  reenableEndpointOrThrow,
  type WebhookEndpoint,
} from '../../webhooks/endpoints';
import { listDeliveryAttempts, listEndpointsWithLatestAttempt } from '../../webhooks/list-delivery-attempts';
import { registerEndpoint } from '../../webhooks/register-endpoint';
import { resendDelivery, sendTestEvent } from '../../webhooks/test-and-resend';
import { accountProcedure, createUiRouter } from '../trpc';

const presentEndpoint = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  form: e.form,
  active: e.active,
  createdAt: e.createdAt.toISOString(),
  deactivatedAt: e.deactivatedAt?.toISOString() ?? null,
});

const idInput = z.object({ id: z.guid() });

export const webhooksRouter = createUiRouter({
  /** Endpoints with the result of each one's latest attempt (one query for all). */
  list: accountProcedure.query(async ({ ctx }) =>
    (await listEndpointsWithLatestAttempt(ctx.db, ctx.accountId)).map((e) => ({
      ...presentEndpoint(e),
      lastDelivery: e.latestAttempt
        ? {
            success: e.latestAttempt.success,
            statusCode: e.latestAttempt.statusCode,
            error: e.latestAttempt.error,
            at: e.latestAttempt.createdAt.toISOString(),
          }
        : null,
    })),
  ),

  get: accountProcedure
    .input(idInput)
    .query(async ({ ctx, input }) =>
      presentEndpoint(await getEndpointOrThrow(ctx.db, ctx.accountId, input.id)),
    ),

  /** The secret is in this answer only (SPEC 2.6). */
  create: accountProcedure
    .input(
      z.object({
        url: z.string().trim().min(1, 'Enter the endpoint URL'),
        events: z.array(z.enum(WEBHOOK_EVENTS)).min(1, 'Choose at least one event'),
        form: z.enum(FORM_NAMES).default(DEFAULT_FORM),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const registration = { url: input.url, events: input.events, form: FORM_PROFILES[input.form] };
      const endpoint = await registerEndpoint(ctx.db, ctx.services.webhooks, ctx.accountId, registration);
      return { endpoint: presentEndpoint(endpoint), secret: endpoint.secret };
    }),

  delete: accountProcedure.input(idInput).mutation(async ({ ctx, input }) => {
    await deleteEndpointOrThrow(ctx.db, ctx.accountId, input.id);
    return { ok: true as const };
  }),

  /** SPEC 3.1: re-enable is offered here, not through /v1. */
  reenable: accountProcedure
    .input(idInput)
    .mutation(async ({ ctx, input }) =>
      presentEndpoint(await reenableEndpointOrThrow(ctx.db, ctx.accountId, input.id)),
    ),

  sendTest: accountProcedure
    .input(idInput)
    .mutation(({ ctx, input }) => sendTestEvent(ctx.db, ctx.services, ctx.accountId, input.id)),

  resend: accountProcedure
    .input(z.object({ deliveryId: z.guid() }))
    .mutation(({ ctx, input }) => resendDelivery(ctx.db, ctx.services, ctx.accountId, input.deliveryId)),

  /** The delivery log: every attempt, newest first, optionally only failed or succeeded ones. */
  deliveries: accountProcedure
    .input(
      z.object({
        id: z.guid(),
        status: z.enum(['all', 'failed', 'succeeded']).default('all'),
        limit: z.number().int().min(1).max(100).default(25),
        cursor: z.string().nullish(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const after = input.cursor ? decodeCursor(input.cursor) : undefined;
      const page = await listDeliveryAttempts(ctx.db, ctx.accountId, input.id, {
        limit: input.limit,
        ...(after && { after }),
        ...(input.status !== 'all' && { success: input.status === 'succeeded' }),
      });
      const last = page.attempts.at(-1);
      return {
        items: page.attempts.map((a) => ({
          id: a.id,
          deliveryId: a.deliveryId,
          event: a.event,
          attempt: a.attempt,
          statusCode: a.statusCode,
          success: a.success,
          error: a.error,
          durationMs: a.durationMs,
          createdAt: a.createdAt.toISOString(),
          payload: a.payload,
          requestHeaders: a.requestHeaders as Record<string, string>,
          responseBody: a.responseBody,
        })),
        nextCursor: page.hasMore && last ? encodeCursor(last) : null,
      };
    }),
});
