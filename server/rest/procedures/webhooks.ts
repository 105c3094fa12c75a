import { z } from 'zod';
import {
  deleteEndpointOrThrow,
  listEndpoints,
  MAX_ENDPOINTS_PER_ACCOUNT,
  type WebhookEndpoint,
} from '../../webhooks/endpoints';
import { listDeliveryAttempts, type DeliveryAttemptRecord } from '../../webhooks/list-delivery-attempts';
import { registerEndpoint } from '../../webhooks/register-endpoint';
import type { FormName, WebhookEvent } from '../../domain';
import { uuidPathParam } from '../../http/params';
import { restProcedure } from '../../http/openapi-trpc';
import { FORM_PROFILES } from '../form-profiles';

// POST/GET /v1/webhooks, DELETE /v1/webhooks/{id}, GET /v1/webhooks/{id}/deliveries: one
// implementation for both forms; each form passes its schemas and presenters.

export interface CreateEndpointInput {
  url: string;
  events: WebhookEvent[];
}

export interface WebhooksForm<TCreated, TList, TDeleted> {
  name: FormName;
  createEndpointInput: z.ZodType<CreateEndpointInput>;
  createdEndpoint: z.ZodType<TCreated>;
  endpointList: z.ZodType<TList>;
  deletedEndpoint: z.ZodType<TDeleted>;
  deleteStatus: 200 | 204;
  presentCreatedEndpoint(endpoint: WebhookEndpoint): TCreated;
  presentEndpointList(endpoints: WebhookEndpoint[]): TList;
  presentDeletedEndpoint(): TDeleted;
}

export const createEndpointProcedure = <C, L, D>(form: WebhooksForm<C, L, D>) =>
  restProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/webhooks',
        summary: 'Create a webhook endpoint',
        // The cap is stated where clients read it.
        description: `The secret is shown in this response only. An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints: registering one more is a 422 (Form B: 400).`,
        tags: ['Webhooks'],
      },
      rest: { status: 201, errors: ['invalid_request', 'validation_error', 'conflict'] },
    })
    .input(form.createEndpointInput)
    .output(form.createdEndpoint)
    .mutation(async ({ ctx, input }) => {
      const registration = { ...input, form: FORM_PROFILES[form.name] };
      const endpoint = await registerEndpoint(ctx.db, ctx.services.webhooks, ctx.accountId, registration);
      return form.presentCreatedEndpoint(endpoint);
    });

export const listEndpointsProcedure = <C, L, D>(form: WebhooksForm<C, L, D>) =>
  restProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks',
        summary: 'List webhook endpoints',
        description: 'Active and inactive endpoints, newest first; secrets are never shown again.',
        tags: ['Webhooks'],
      },
      rest: { errors: [] },
    })
    .input(z.object({}))
    .output(form.endpointList)
    .query(async ({ ctx }) => form.presentEndpointList(await listEndpoints(ctx.db, ctx.accountId)));

export const deleteEndpointProcedure = <C, L, D>(form: WebhooksForm<C, L, D>) =>
  restProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/webhooks/{id}',
        summary: 'Delete a webhook endpoint',
        description: 'Removes it at once; pending retries are cancelled.',
        tags: ['Webhooks'],
      },
      rest: { status: form.deleteStatus, errors: ['invalid_request', 'not_found'] },
    })
    .input(z.object({ id: uuidPathParam }))
    .output(form.deletedEndpoint)
    .mutation(async ({ ctx, input }) => {
      await deleteEndpointOrThrow(ctx.db, ctx.accountId, input.id);
      return form.presentDeletedEndpoint();
    });

export interface DeliveriesForm<TPage> {
  listDeliveriesInput: z.ZodType<{ id: string; limit: number; after?: { createdAt: Date; id: string } }>;
  deliveryPage: z.ZodType<TPage>;
  presentDeliveryPage(page: { attempts: DeliveryAttemptRecord[]; hasMore: boolean }): TPage;
}

export const listDeliveriesProcedure = <P>(form: DeliveriesForm<P>) =>
  restProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks/{id}/deliveries',
        summary: 'List delivery attempts',
        description: 'Every attempt to deliver to the endpoint, newest first.',
        tags: ['Webhooks'],
      },
      rest: { errors: ['invalid_request', 'validation_error', 'not_found'] },
    })
    .input(form.listDeliveriesInput)
    .output(form.deliveryPage)
    .query(async ({ ctx, input }) =>
      form.presentDeliveryPage(
        await listDeliveryAttempts(ctx.db, ctx.accountId, input.id, {
          limit: input.limit,
          ...(input.after && { after: input.after }),
        }),
      ),
    );
