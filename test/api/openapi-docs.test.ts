import { describe, expect, it } from 'vitest';
import { FORM_NAMES, type FormName, WEBHOOK_EVENTS } from '../../server/domain';
import { limitParam } from '../../server/http/params';
import { openApiDocumentFor } from '../../server/rest/openapi-document';
import { newAjv, rebase } from '../support/openapi-contract';

// Every rule the server enforces is in the documents (bounds, formats,
// enums, defaults, descriptions where generators read them), and every response with a body has
// an example, written by the server's own presenters, that its schema accepts.

const docOf = (form: FormName) => openApiDocumentFor(form, 'https://api.example.com') as any;
const operations = (d: any) =>
  Object.entries(d.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })),
  );
const param = (d: any, path: string, name: string) =>
  d.paths[path].get.parameters.find((p: any) => p.name === name);
const schemaNamed = (d: any, name: string) => d.components.schemas[name];

/** Every property of every schema under `schema`, with its path. */
function properties(schema: any, at: string): { at: string; prop: any }[] {
  if (!schema || typeof schema !== 'object') return [];
  const own = Object.entries(schema.properties ?? {}).flatMap(([name, prop]) => [
    { at: `${at}.${name}`, prop },
    ...properties(prop, `${at}.${name}`),
  ]);
  const nested = ['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf'].flatMap((k) =>
    [schema[k]].flat().flatMap((s: any) => properties(s, `${at}/${k}`)),
  );
  return [...own, ...nested];
}

describe.each(FORM_NAMES)('Form %s states its rules', (form) => {
  const d = docOf(form);

  it('says what happens in its own words: no internal rule or issue numbers', () => {
    const text = JSON.stringify(d);
    expect(text.match(/\bD\d{1,2}\b|\bSPEC \d|\b[Ii]ssue \d+/g) ?? []).toEqual([]);
  });

  it('every parameter has a description at the parameter level', () => {
    const params = operations(d).flatMap(({ op }) => op.parameters ?? []);
    expect(params.length).toBeGreaterThan(10);
    for (const p of params) expect(p.description, `${p.in} ${p.name}`).toMatch(/\S/);
  });

  it('every schema property has a description (a $ref is described by its schema)', () => {
    const all = [
      ...Object.entries(d.components.schemas).flatMap(([name, s]) => properties(s, name)),
      ...operations(d).flatMap(({ path, method, op }) =>
        properties(op.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`),
      ),
    ];
    expect(all.length).toBeGreaterThan(40);
    const undescribed = all.filter(({ prop }) => !prop.$ref && !prop.description).map(({ at }) => at);
    expect(undescribed).toEqual([]);
  });

  it('tags are defined at the top level, with descriptions', () => {
    const webhooks = Object.values(d.webhooks).flatMap((item: any) => Object.values(item));
    const used = new Set(
      [...operations(d).map(({ op }) => op), ...webhooks].flatMap((op: any) => op.tags ?? []),
    );
    expect(d.tags.map((t: any) => t.name).sort()).toEqual([...used].sort());
    for (const tag of d.tags) expect(tag.description).toMatch(/\S/);
  });

  it('timestamps are date-time (a nullable one too), ids uuid, webhook URLs uri', () => {
    const all = Object.entries(d.components.schemas).flatMap(([name, s]) => properties(s, name));
    const named = (re: RegExp) => all.filter(({ at }) => re.test(at.split('.').at(-1) ?? ''));
    const stamps = named(/^(created_at|started_at|ended_at)$/);
    expect(stamps.length).toBeGreaterThanOrEqual(6);
    // A nullable value is anyOf [its schema, null].
    const nonNull = (prop: any) => prop.anyOf?.find((s: any) => s.type !== 'null') ?? prop;
    for (const { at, prop } of stamps) expect(nonNull(prop).format, at).toBe('date-time');
    for (const { at, prop } of named(/^(id|note_id|delivery_id)$/)) expect(prop.format, at).toBe('uuid');
    for (const { at, prop } of named(/^url$/)) expect(prop.format, at).toBe('uri');
  });

  it('limits have their bounds and defaults; q and url their lengths; events its default', () => {
    expect(param(d, '/notes', 'limit').schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(param(d, '/notes/search', 'limit').schema).toMatchObject(
      form === 'A'
        ? { type: 'integer', minimum: 1, maximum: 50, default: 10 }
        : { type: 'integer', minimum: 1, maximum: 20, default: 5 },
    );
    const q = param(d, '/notes/search', 'q');
    expect(q.required).toBe(true);
    expect(q.schema).toMatchObject({ minLength: 1, pattern: '\\S' });
    if (form === 'A') expect(q.schema.maxLength).toBe(256);
    const body = d.paths['/webhooks'].post.requestBody.content['application/json'].schema;
    expect(body.properties.url).toMatchObject({ format: 'uri', minLength: 1, maxLength: 2048 });
    expect(body.properties.events.default).toEqual(['meeting.completed']);
    expect(d.paths['/webhooks'].post.description).toMatch(/at most 25 webhook endpoints/);
  });

  if (form === 'B') {
    it("Form B's cursor is a date-time, and a delivery attempt's event the webhook event enum", () => {
      expect(param(d, '/notes', 'cursor').schema.format).toBe('date-time');
      const nextCursor = schemaNamed(d, 'NoteList').properties.next_cursor;
      expect(nextCursor.anyOf[0].format).toBe('date-time');
      expect(schemaNamed(d, 'DeliveryAttempt').properties.event.enum).toEqual([...WEBHOOK_EVENTS]);
      expect(schemaNamed(d, 'WebhookPayload').properties.event.enum).toEqual([...WEBHOOK_EVENTS]);
    });
  }
});

describe.each(FORM_NAMES)('Form %s examples', (form) => {
  const d = docOf(form);
  const ajv = newAjv();
  const id = `urn:openapi:examples-${form}`;
  ajv.addSchema({ $id: id, $defs: rebase(d.components.schemas, id) as object });

  it('every response with a body has examples, and its schema accepts each of them', () => {
    let checked = 0;
    for (const { path, method, op } of operations(d)) {
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        const json = response.content?.['application/json'];
        if (!json) continue;
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const examples = Object.entries(json.examples ?? {}) as [string, any][];
        expect(examples.length, where).toBeGreaterThan(0);
        // A 401 that may be in either form (the X-API-Form header's, otherwise Form A's) is judged
        // by anyOf as a whole.
        const check = ajv.compile(rebase(json.schema, id) as object);
        for (const [name, example] of examples) {
          expect(check(example.value), `${where} ${name}: ${ajv.errorsText(check.errors)}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('error examples are the form error body, one per code of the status', () => {
    const r = d.paths['/notes'].get.responses;
    const value = r['400'].content['application/json'].examples.invalid_request.value;
    if (form === 'A')
      expect(value).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
    else {
      expect(value).toEqual({ error: expect.any(String) });
      // Form B answers a validation error as a 400 too.
      expect(Object.keys(r['400'].content['application/json'].examples)).toContain('validation_error');
    }
  });
});

describe('limit is a plain decimal integer', () => {
  const limit = limitParam(100, 20);
  const issue = (value: unknown) => {
    const r = limit.safeParse(value);
    return r.success ? r.data : r.error.issues[0]?.code;
  };

  it.each(['1e1', '+5', ' 5', '5 ', '5.0', '0x10', '', '١٢'])('%j is malformed (invalid_type: 400)', (v) => {
    expect(issue(v)).toBe('invalid_type');
  });

  it('digits parse; out of range is a range issue (422 in Form A); absent is the default', () => {
    expect(issue('5')).toBe(5);
    expect(issue('100')).toBe(100);
    expect(issue('0')).toBe('too_small');
    expect(issue('-1')).toBe('too_small');
    expect(issue('500')).toBe('too_big');
    expect(issue(undefined)).toBeUndefined();
  });
});
