import { z } from 'zod';
import { getEventOrThrow, listEvents } from '../../events/list-events';
import { uuidPathParam } from '../../http/params';
import { restProcedure } from '../../http/openapi-trpc';
import {
  EventListSchema,
  EventSchema,
  type ListEventsRequest,
  presentEvent,
  presentEventList,
} from '../event-schemas';
import { documentedOutput } from './documented-output';

// GET /v1/events and GET /v1/events/{id}: the account's events of the last 30 days, so that an
// integrator can catch up on what its webhooks missed (docs/rules.md#events-api). The same
// bodies in both forms; each form passes its query schema.

export const listEventsProcedure = (form: { listEventsInput: z.ZodType<ListEventsRequest> }) =>
  documentedOutput(
    EventListSchema,
    restProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/events',
          summary: 'List events',
          description:
            "The account's meeting events of the last 30 days, newest first: the envelopes its webhooks carry, each with the event's id.",
          tags: ['Events'],
        },
        rest: { errors: ['invalid_request', 'validation_error'] },
      })
      .input(form.listEventsInput)
      .query(async ({ ctx, input }) => {
        const { label, ...query } = input;
        return presentEventList(await listEvents(ctx.db, ctx.accountId, query), label);
      }),
  );

export const getEventProcedure = () =>
  documentedOutput(
    EventSchema,
    restProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/events/{id}',
          summary: 'Get an event',
          description:
            'One event of the last 30 days, by the id its deliveries carried in X-Service-Event-Id.',
          tags: ['Events'],
        },
        rest: { errors: ['invalid_request', 'not_found'] },
      })
      .input(z.object({ id: uuidPathParam }))
      .query(async ({ ctx, input }) => presentEvent(await getEventOrThrow(ctx.db, ctx.accountId, input.id))),
  );
