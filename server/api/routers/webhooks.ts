import { z } from 'zod';
import { DEFAULT_FORM, FORM_NAMES, WEBHOOK_EVENTS } from '../../domain';
import { validationError } from '../../errors';
import { decodeCursor, encodeCursor } from '../../http/opaque-cursor';
import { FORM_PROFILES } from '../../rest/form-profiles';
import { DELIVERY_STATES } from '../../webhooks/delivery-state';
import {
  deleteEndpointOrThrow,
  getEndpointOrThrow,
  reenableEndpointOrThrow,
  type WebhookEndpoint,
} from '../../webhooks/endpoints';
import {
  EMPTY_HEALTH,
  type EndpointHealth,
  endpointHealth,
  healthOfEndpoints,
} from '../../webhooks/endpoint-health';
import { listEndpointsWithLatestAttempt } from '../../webhooks/list-delivery-attempts';
import { type DeliveryRecord, getDelivery, listDeliveries } from '../../webhooks/list-deliveries';
import { recoverDeliveries } from '../../webhooks/recover-deliveries';
import { registerEndpoint } from '../../webhooks/register-endpoint';
import { resendDelivery, sendTestEvent } from '../../webhooks/test-and-resend';
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  MAX_DESCRIPTION_LENGTH,
  MAX_ROTATION_OVERLAP_SECONDS,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../webhooks/update-endpoint';
import { accountProcedure, createUiRouter } from '../trpc';

const iso = (d: Date | null) => d?.toISOString() ?? null;

const presentEndpoint = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  events: e.events,
  form: e.form,
  active: e.active,
  createdAt: e.createdAt.toISOString(),
  deactivatedAt: iso(e.deactivatedAt),
  /** While a rotated-out secret still signs. */
  previousSecretExpiresAt:
    e.previousSecretExpiresAt && e.previousSecretExpiresAt.getTime() > Date.now()
      ? e.previousSecretExpiresAt.toISOString()
      : null,
});

const presentHealth = (h: EndpointHealth) => ({
  day: h.day,
  week: h.week,
  lastError: h.lastError ? { ...h.lastError, at: h.lastError.at.toISOString() } : null,
});

const presentDelivery = (d: DeliveryRecord) => ({
  id: d.id,
  event: d.event,
  state: d.state,
  attempts: d.attempts,
  noteId: d.noteId,
  test: d.test,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  lastAttemptAt: iso(d.lastAttemptAt),
  nextAttemptAt: iso(d.nextAttemptAt),
  cancelledReason: d.cancelledReason,
  resentAs: d.resentAs,
  createdAt: d.createdAt.toISOString(),
});

const idInput = z.object({ id: z.guid() });
const description = z
  .string()
  .trim()
  .max(MAX_DESCRIPTION_LENGTH, `The description can be at most ${MAX_DESCRIPTION_LENGTH} characters`);
const events = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1, 'Choose at least one event')
  .max(WEBHOOK_EVENTS.length * 4);
const isoTime = z.iso.datetime({ offset: true, message: 'Enter a valid date and time' });

export const webhooksRouter = createUiRouter({
  /** Endpoints with their latest attempt and their health over 24 h and 7 days (three queries for all). */
  list: accountProcedure.query(async ({ ctx }) => {
    const [endpoints, health] = await Promise.all([
      listEndpointsWithLatestAttempt(ctx.db, ctx.accountId),
      healthOfEndpoints(ctx.db, ctx.accountId),
    ]);
    return endpoints.map((e) => ({
      ...presentEndpoint(e),
      lastDelivery: e.latestAttempt
        ? {
            success: e.latestAttempt.success,
            statusCode: e.latestAttempt.statusCode,
            error: e.latestAttempt.error,
            at: e.latestAttempt.createdAt.toISOString(),
          }
        : null,
      health: presentHealth(health.get(e.id) ?? EMPTY_HEALTH),
    }));
  }),

  /** The endpoint; when inactive, the delivery that deactivated it and that delivery's last error. */
  get: accountProcedure.input(idInput).query(async ({ ctx, input }) => {
    const endpoint = await getEndpointOrThrow(ctx.db, ctx.accountId, input.id);
    const cause =
      !endpoint.active && endpoint.deactivatedByDeliveryId
        ? await getDelivery(ctx.db, ctx.accountId, endpoint.deactivatedByDeliveryId).catch(() => null)
        : null;
    return {
      ...presentEndpoint(endpoint),
      deactivatedBy: cause
        ? {
            deliveryId: cause.id,
            event: cause.event,
            attempts: cause.attempts,
            lastStatusCode: cause.lastStatusCode,
            lastError: cause.lastError,
            at: iso(cause.lastAttemptAt),
            /** Recovering from this moment on includes the delivery. */
            createdAt: cause.createdAt.toISOString(),
          }
        : null,
    };
  }),

  /** Success rate, counts, last error and the two charts' buckets. */
  health: accountProcedure.input(idInput).query(async ({ ctx, input }) => {
    const h = await endpointHealth(ctx.db, ctx.accountId, input.id);
    const bucket = (b: { start: Date; succeeded: number; failed: number }) => ({
      ...b,
      start: b.start.toISOString(),
    });
    return { ...presentHealth(h), hourly: h.hourly.map(bucket), daily: h.daily.map(bucket) };
  }),

  /** The secret is in this answer only. */
  create: accountProcedure
    .input(
      z.object({
        url: z.string().trim().min(1, 'Enter the endpoint URL').max(2048, 'The URL is too long'),
        events,
        description: description.optional(),
        form: z.enum(FORM_NAMES).default(DEFAULT_FORM),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const registration = {
        url: input.url,
        events: input.events,
        ...(input.description !== undefined && { description: input.description }),
        form: FORM_PROFILES[input.form],
      };
      const endpoint = await registerEndpoint(ctx.db, ctx.services.webhooks, ctx.accountId, registration);
      return { endpoint: presentEndpoint(endpoint), secret: endpoint.secret };
    }),

  /** URL (checked again as at registration), events and description; id, secret and history stay. */
  update: accountProcedure
    .input(
      z.object({
        id: z.guid(),
        url: z.string().trim().min(1, 'Enter the endpoint URL').max(2048, 'The URL is too long').optional(),
        events: events.optional(),
        description: description.optional(),
      }),
    )
    .mutation(async ({ ctx, input }) =>
      presentEndpoint(
        await updateEndpoint(ctx.db, ctx.services.webhooks, ctx.accountId, input.id, {
          ...(input.url !== undefined && { url: input.url }),
          ...(input.events !== undefined && { events: input.events }),
          ...(input.description !== undefined && { description: input.description }),
        }),
      ),
    ),

  /** A new secret, shown once; the old one signs too for the overlap. */
  rotateSecret: accountProcedure
    .input(
      z.object({
        id: z.guid(),
        overlapSeconds: z
          .number()
          .int()
          .min(0)
          .max(MAX_ROTATION_OVERLAP_SECONDS, 'The overlap can be at most 7 days')
          .default(DEFAULT_ROTATION_OVERLAP_SECONDS),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const rotated = await rotateEndpointSecret(
        ctx.db,
        ctx.services.webhooks.secrets,
        ctx.accountId,
        input.id,
        {
          overlapSeconds: input.overlapSeconds,
          newSecret: (form) => FORM_PROFILES[form].newWebhookSecret(),
        },
      );
      return { endpoint: presentEndpoint(rotated.endpoint), secret: rotated.secret };
    }),

  delete: accountProcedure.input(idInput).mutation(async ({ ctx, input }) => {
    await deleteEndpointOrThrow(ctx.db, ctx.accountId, input.id);
    return { ok: true as const };
  }),

  /** Re-enabling is offered here, not through /v1. */
  reenable: accountProcedure
    .input(idInput)
    .mutation(async ({ ctx, input }) =>
      presentEndpoint(await reenableEndpointOrThrow(ctx.db, ctx.accountId, input.id)),
    ),

  /** A sample of the chosen event in its real payload shape; else the first subscribed event. */
  sendTest: accountProcedure
    .input(z.object({ id: z.guid(), event: z.enum(WEBHOOK_EVENTS).optional() }))
    .mutation(({ ctx, input }) => sendTestEvent(ctx.db, ctx.services, ctx.accountId, input.id, input.event)),

  resend: accountProcedure
    .input(z.object({ deliveryId: z.guid() }))
    .mutation(({ ctx, input }) => resendDelivery(ctx.db, ctx.services, ctx.accountId, input.deliveryId)),

  /** Queue again every delivery that failed or was cancelled since `since`. */
  recover: accountProcedure
    .input(z.object({ id: z.guid(), since: isoTime }))
    .mutation(({ ctx, input }) =>
      recoverDeliveries(ctx.db, ctx.services, ctx.accountId, input.id, new Date(input.since)),
    ),

  /** Deliveries (one per event), newest first, with state; filters and lookup. */
  deliveries: accountProcedure
    .input(
      z.object({
        id: z.guid(),
        state: z.enum(['all', ...DELIVERY_STATES]).default('all'),
        event: z.enum(WEBHOOK_EVENTS).optional(),
        since: isoTime.optional(),
        until: isoTime.optional(),
        /** A delivery id or a note id. */
        lookup: z.string().trim().max(100, 'Enter a delivery id or a note id').optional(),
        limit: z.number().int().min(1).max(100).default(25),
        cursor: z.string().max(200).nullish(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const after = input.cursor ? decodeCursor(input.cursor) : undefined;
      if (after === null) throw validationError('The page cursor is not valid; reload the list');
      const page = await listDeliveries(ctx.db, ctx.accountId, input.id, {
        limit: input.limit,
        ...(after && { after }),
        ...(input.state !== 'all' && { state: input.state }),
        ...(input.event && { event: input.event }),
        ...(input.since && { since: new Date(input.since) }),
        ...(input.until && { until: new Date(input.until) }),
        ...(input.lookup && { lookup: input.lookup }),
      });
      const last = page.deliveries.at(-1);
      return {
        items: page.deliveries.map(presentDelivery),
        nextCursor: page.hasMore && last ? encodeCursor(last) : null,
      };
    }),

  /** One delivery expanded: payload and every attempt (request headers, response). */
  delivery: accountProcedure.input(z.object({ deliveryId: z.guid() })).query(async ({ ctx, input }) => {
    const d = await getDelivery(ctx.db, ctx.accountId, input.deliveryId);
    return {
      ...presentDelivery(d),
      payload: d.payload,
      attemptLog: d.attemptLog.map((a) => ({ ...a, createdAt: a.createdAt.toISOString() })),
    };
  }),
});
