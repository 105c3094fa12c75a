import { type FormName, WEBHOOK_EVENTS, type WebhookEvent } from '../domain';
import { documentForm, openApiDocumentFor } from './openapi-document';
import { WEBHOOK_EVENTS_TAG } from './webhooks-catalog';

// The event catalog as an AsyncAPI 3.0 document per form (GET /api/asyncapi.json?form=A|B), for
// tools that read AsyncAPI rather than OpenAPI's `webhooks`. It is built from the form's OpenAPI
// document, the same entries and the same component schemas, so the two cannot say different
// things.

type Json = { [key: string]: unknown };

/** The component schemas `root` refers to, directly or through each other. */
function reachableSchemas(root: unknown, all: Record<string, Json>): Record<string, Json> {
  const found: Record<string, Json> = {};
  const visit = (node: unknown) => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
          const name = value.slice('#/components/schemas/'.length);
          const schema = all[name];
          if (schema && !found[name]) {
            found[name] = schema;
            visit(schema);
          }
        } else visit(value);
      }
    }
  };
  visit(root);
  return found;
}

/** meeting.started → meetingStarted, the key of its message and operation. */
const keyOf = (event: WebhookEvent) => event.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase());

const cache = new Map<FormName, Json>();

export function asyncApiDocumentFor(form: FormName): Json {
  const cached = cache.get(form);
  if (cached) return cached;
  const openapi = openApiDocumentFor(form) as unknown as {
    info: { version: string };
    webhooks: Record<
      WebhookEvent,
      {
        post: Json & {
          parameters: Json[];
          requestBody: { content: { 'application/json': { schema: Json; example: unknown } } };
        };
      }
    >;
    components: { schemas: Record<string, Json> };
  };
  const messages: Record<string, Json> = {};
  const operations: Record<string, Json> = {};
  const channelMessages: Record<string, Json> = {};
  for (const event of WEBHOOK_EVENTS) {
    const { post } = openapi.webhooks[event];
    const body = post.requestBody.content['application/json'];
    const key = keyOf(event);
    const headers = post.parameters as { name: string; description: string; schema: Json }[];
    messages[key] = {
      name: event,
      title: event,
      summary: post.description,
      contentType: 'application/json',
      headers: {
        type: 'object',
        required: headers.map((h) => h.name),
        properties: Object.fromEntries(
          headers.map((h) => [h.name, { ...h.schema, description: h.description }]),
        ),
      },
      payload: body.schema,
      examples: [{ name: key, summary: `A ${event} body as the service writes it.`, payload: body.example }],
      bindings: { http: { bindingVersion: '0.3.0' } },
    };
    channelMessages[key] = { $ref: `#/components/messages/${key}` };
    operations[key] = {
      action: 'send',
      channel: { $ref: '#/channels/webhookEndpoint' },
      title: event,
      summary: `POSTs ${event} to each active endpoint subscribed to it.`,
      messages: [{ $ref: `#/channels/webhookEndpoint/messages/${key}` }],
      bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
      tags: [{ name: WEBHOOK_EVENTS_TAG.name }],
    };
  }
  const doc: Json = {
    asyncapi: '3.0.0',
    info: {
      title: `Meeting Notes webhooks (Form ${form})`,
      version: openapi.info.version,
      description: `${WEBHOOK_EVENTS_TAG.description} The same catalog as the webhooks section of /api/openapi.json?form=${form}. Each attempt is a signed POST with the headers below; a 2xx within the time-out acknowledges it.`,
      tags: [WEBHOOK_EVENTS_TAG],
    },
    defaultContentType: 'application/json',
    channels: {
      webhookEndpoint: {
        // Each account registers its own URLs: the channel has no address of its own.
        address: null,
        title: 'A webhook endpoint',
        description:
          'The URL of a webhook endpoint the account registered, which receives the events it subscribed to.',
        messages: channelMessages,
      },
    },
    operations,
    components: {
      messages,
      schemas: reachableSchemas(messages, openapi.components.schemas),
    },
  };
  cache.set(form, doc);
  return doc;
}

// GET /api/asyncapi.json?form=A|B – the AsyncAPI 3.0 document of one form's events (default: DEFAULT_FORM)
export function createAsyncApiDocumentHandler() {
  return async function handleAsyncApiDocument(request: Request): Promise<Response> {
    const form = documentForm(request);
    if (form instanceof Response) return form;
    return Response.json(asyncApiDocumentFor(form), { headers: { 'Cache-Control': 'public, max-age=300' } });
  };
}
