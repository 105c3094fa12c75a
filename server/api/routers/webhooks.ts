import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { queryRows } from '../../db/client';
import { FORMS, WEBHOOK_EVENTS } from '../../db/schema';
import { decodeCursor, encodeCursor } from '../../http/opaque-cursor';
import {
  createEndpoint,
  deleteEndpointOrThrow,
  getEndpointOrThrow,
  listEndpoints,
  reenableEndpointOrThrow,
  type WebhookEndpoint,
} from '../../webhooks/endpoints';
import { listDeliveryAttempts } from '../../webhooks/list-delivery-attempts';
import { resendDelivery, sendTestEvent } from '../../webhooks/test-and-resend';
import { checkWebhookUrl } from '../../webhooks/url-guard';
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
  list: accountProcedure.query(async ({ ctx }) => {
    const endpoints = await listEndpoints(ctx.db, ctx.accountId);
    const latest = await queryRows<{
      endpoint_id: string;
      success: boolean;
      status_code: number | null;
      error: string | null;
      created_at: string | Date;
    }>(
      ctx.db,
      sql`select distinct on (endpoint_id) endpoint_id, success, status_code, error, created_at
          from delivery_attempts
          where endpoint_id in (select id from webhook_endpoints where account_id = ${ctx.accountId})
          order by endpoint_id, created_at desc, id desc`,
    );
    const byEndpoint = new Map(latest.map((l) => [l.endpoint_id, l]));
    return endpoints.map((e) => {
      const last = byEndpoint.get(e.id);
      return {
        ...presentEndpoint(e),
        lastDelivery: last
          ? {
              success: last.success,
              statusCode: last.status_code,
              error: last.error,
              at: new Date(last.created_at).toISOString(),
            }
          : null,
      };
    });
  }),

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
        form: z.enum(FORMS).default('A'),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { url } = await checkWebhookUrl(input.url, {
        allowPrivate: ctx.services.webhooks.allowPrivateUrls,
        ...(ctx.services.webhooks.resolve && { resolve: ctx.services.webhooks.resolve }),
      });
      const endpoint = await createEndpoint(ctx.db, {
        accountId: ctx.accountId,
        url: url.toString(),
        events: [...new Set(input.events)],
        form: input.form,
      });
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

  sendTest: accountProcedure.input(idInput).mutation(async ({ ctx, input }) => {
    const result = await sendTestEvent(ctx.db, ctx.accountId, input.id);
    ctx.services.kick();
    return result;
  }),

  resend: accountProcedure.input(z.object({ deliveryId: z.guid() })).mutation(async ({ ctx, input }) => {
    const result = await resendDelivery(ctx.db, ctx.accountId, input.deliveryId);
    ctx.services.kick();
    return result;
  }),

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
