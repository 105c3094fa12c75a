import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_NAMES, WEBHOOK_EVENTS } from '../../server/domain';
import { runDueWork } from '../../server/worker/run-due-work';
import { newAjv, rebase } from '../support/openapi-contract';
import { startTestApp, type TestApp } from '../support/test-app';
import { Receiver } from '../support/webhook-receiver';

// The event catalog in both forms' OpenAPI documents (their `webhooks` section): every event a
// real meeting fires reaches a receiver with a body and headers that the catalog's schemas for
// that event accept, and the catalog's examples are what the service writes.

let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await new Receiver().start();
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

interface CatalogEntry {
  post: any;
  example: any;
  body: ValidateFunction;
  headers: { name: string; check: ValidateFunction }[];
}

/** Validators for one form's catalog: the body and each header of every event. */
async function catalogOf(form: string): Promise<Record<string, CatalogEntry>> {
  const doc = (await app.request(`/api/openapi.json?form=${form}`)).json;
  const ajv = newAjv();
  const id = `urn:catalog:form-${form}`;
  ajv.addSchema({ $id: id, $defs: rebase(doc.components.schemas, id) as Record<string, unknown> });
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => {
      const post = doc.webhooks[event].post;
      const content = post.requestBody.content['application/json'];
      return [
        event,
        {
          post,
          example: content.example,
          body: ajv.compile(rebase(content.schema, id) as object),
          headers: post.parameters.map((p: any) => ({
            name: p.name as string,
            check: ajv.compile(p.schema),
          })),
        },
      ];
    }),
  );
}

describe('the event catalog', () => {
  it('lists the four events in both forms, each a signed POST with its headers, body and answer described', async () => {
    for (const form of FORM_NAMES) {
      const doc = (await app.request(`/api/openapi.json?form=${form}`)).json;
      expect(Object.keys(doc.webhooks)).toEqual([...WEBHOOK_EVENTS]);
      for (const event of WEBHOOK_EVENTS) {
        const { post } = doc.webhooks[event];
        expect(post.summary).toBe(event);
        expect(post.description).toMatch(/signature/);
        expect(post.parameters.map((p: any) => p.name)).toEqual(
          expect.arrayContaining([
            'X-Service-Signature',
            'X-Service-Event-Id',
            'webhook-id',
            'webhook-signature',
          ]),
        );
        expect(Object.keys(post.responses)).toEqual(['200']);
      }
      // The same data schema as the Events API's.
      expect(
        doc.webhooks['summary.ready'].post.requestBody.content['application/json'].schema.properties.data,
      ).toEqual({ $ref: '#/components/schemas/EventData' });
    }
  });

  it("every event a meeting fires is delivered with a body and headers the catalog's schemas for that event accept, in both forms' documents", async () => {
    const catalogs = await Promise.all(FORM_NAMES.map(catalogOf));
    const { key } = await app.createAccount({ form: 'A' });
    const target = receiver.path('catalog');
    for (const events of [
      ['meeting.started', 'meeting.transcribed', 'summary.ready'],
      ['meeting.completed'],
    ]) {
      const res = await app.request('/v1/webhooks', {
        method: 'POST',
        key,
        json: { url: `${target.url}?${events.length}`, events },
      });
      expect(res.status).toBe(201);
    }
    await app.recordNote(key, {
      title: null,
      platform: 'microphone',
      segments: [{ speaker: 'Ana', content: 'No end time is known.', start_time: 0 }],
      summary: {
        context: null,
        decisions: [],
        action_items: [{ task: 'Check', owner: null, deadline: null }],
        participants: [],
        next_step: null,
        budget_mentioned: null,
        sentiment: null,
      },
    });
    await runDueWork(app.db, app.services, { budgetMs: 30_000 });
    const received = receiver.received.filter((r) => r.path.startsWith('/catalog'));
    expect(received.map((r) => r.event).sort()).toEqual([...WEBHOOK_EVENTS].sort());

    for (const catalog of catalogs) {
      for (const delivery of received) {
        const entry = catalog[delivery.event]!;
        const body = JSON.parse(delivery.body);
        expect(entry.body(body), `${delivery.event}: ${JSON.stringify(entry.body.errors)}`).toBe(true);
        for (const header of entry.headers) {
          const value = delivery.headers[header.name.toLowerCase()];
          expect(header.check(value), `${delivery.event} ${header.name}: ${value}`).toBe(true);
        }
        // Not a schema that accepts anything: another event's body is refused.
        const other = WEBHOOK_EVENTS.find((e) => e !== delivery.event)!;
        expect(entry.body({ ...body, event: other })).toBe(false);
        expect(entry.body({ ...body, data: { ...body.data, unknown: 1 } })).toBe(false);
      }
    }
  });

  it("each example is a body as the service writes it: the catalog accepts it, and it has the event's shape", async () => {
    for (const form of FORM_NAMES) {
      const catalog = await catalogOf(form);
      for (const event of WEBHOOK_EVENTS) {
        const { example, body } = catalog[event]!;
        expect(body(example), event).toBe(true);
        expect(example.event).toBe(event);
      }
      expect(catalog['meeting.started']!.example.data).toMatchObject({
        transcript: [],
        summary: null,
        ended_at: null,
      });
      expect(catalog['meeting.completed']!.example.data).toEqual(
        catalog['meeting.transcribed']!.example.data,
      );
      expect(catalog['summary.ready']!.example.data.summary).not.toBeNull();
    }
  });
});
