import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESULT_CHARS } from '../../server/mcp/result-bounds';
import type { TranscriptSegment } from '../support/recorder';
import { startTestApp, type TestApp } from '../support/test-app';

// The MCP server at /mcp, driven by the official SDK's client over Streamable HTTP: the tools an
// agent sees, what each answers, how big an answer may grow, and who is refused.

let app: TestApp;
const clients: Client[] = [];
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await app?.close();
});

async function connect(key: string) {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return result as { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
}

/** A tool's structured answer; a tool error fails the test with its text. */
async function answer(client: Client, name: string, args: Record<string, unknown>) {
  const result = await call(client, name, args);
  expect(result.isError, result.content[0]?.text).toBeFalsy();
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

async function toolError(client: Client, name: string, args: Record<string, unknown>) {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.content[0]?.text).not.toMatch(/\n\s+at /);
  return result.content[0]!.text;
}

/** One raw JSON-RPC POST to /mcp, as a client without the SDK sends it. */
async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const line = (speaker: string, content: string, start: number): TranscriptSegment => ({
  speaker,
  content,
  start_time: start,
  end_time: start + 4,
});

const SUMMARY = {
  context: 'The team planned the harbour migration.',
  decisions: ['Move the ledger service to the harbour cluster', 'Freeze deploys on Thursday'],
  action_items: [
    { task: 'Draft the harbour runbook', owner: 'Ana Lopez', deadline: 'Friday' },
    { task: 'Book the maintenance window', owner: 'Ben', deadline: null },
  ],
  participants: ['Ana Lopez', 'Ben'],
  next_step: 'Review the runbook on Monday.',
  budget_mentioned: null,
  sentiment: 'positive',
};

describe('the MCP server', () => {
  it('initializes and lists its four tools, each with valid JSON Schemas for input and output', async () => {
    const { key } = await app.createAccount();
    const client = await connect(key);
    expect(client.getServerVersion()?.name).toBe('meeting-notes');
    expect(client.getInstructions()).toContain('search_meetings');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_meeting',
      'list_action_items',
      'list_meetings',
      'search_meetings',
    ]);
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(80);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
    }
    const search = tools.find((t) => t.name === 'search_meetings')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(JSON.stringify(search.inputSchema).length).toBeLessThan(2_000);
  });

  it('search_meetings finds the moment, with its meeting, date, speaker and offset, and never another account’s', async () => {
    const { key } = await app.createAccount();
    const other = await app.createAccount();
    const id = await app.recordNote(key, {
      title: 'Harbour migration',
      started_at: '2026-03-02T09:00:00.000Z',
      segments: [
        line('Ana Lopez', 'Good morning everyone.', 0),
        line('Ben', 'The ledger service moves to the harbour cluster next week.', 4),
        line('Ana Lopez', 'Then we freeze deploys on Thursday.', 8),
      ],
      summary: SUMMARY,
    });
    await app.recordNote(other.key, {
      title: 'Other account',
      segments: [line('Zed', 'The ledger service moves to the harbour cluster next week.', 0)],
    });
    const client = await connect(key);
    const { results } = await answer(client, 'search_meetings', { query: 'ledger harbour cluster' });
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r: any) => r.meeting_id === id)).toBe(true);
    expect(results[0]).toMatchObject({
      meeting_id: id,
      title: 'Harbour migration',
      date: '2026-03-02T09:00:00.000Z',
      speaker: 'Ben',
      start_time: 4,
    });
    expect(results[0].snippet).toContain('ledger service');

    const byAna = await answer(client, 'search_meetings', {
      query: 'ledger harbour cluster',
      speaker: 'ana lopez',
    });
    expect(byAna.results.map((r: any) => r.speaker)).toEqual(byAna.results.map(() => 'Ana Lopez'));
    expect((await answer(client, 'search_meetings', { query: 'ledger', platform: 'teams' })).results).toEqual(
      [],
    );
    expect((await answer(client, 'search_meetings', { query: 'ledger', limit: 1 })).results).toHaveLength(1);
  });

  it('get_meeting reads a meeting’s summary, decisions and action items, and its transcript in pages', async () => {
    const { key } = await app.createAccount();
    const segments = Array.from({ length: 7 }, (_, i) =>
      line(i % 2 ? 'Ben' : 'Ana Lopez', `Line number ${i}.`, i * 4),
    );
    const id = await app.recordNote(key, { title: 'Runbook review', segments, summary: SUMMARY });
    const client = await connect(key);

    const meeting = await answer(client, 'get_meeting', { id });
    expect(meeting).toMatchObject({
      id,
      title: 'Runbook review',
      platform: 'zoom',
      language: 'en',
      participants: ['Ana Lopez', 'Ben'],
      decisions: SUMMARY.decisions,
      action_items: SUMMARY.action_items,
      next_step: 'Review the runbook on Monday.',
      truncated: false,
    });
    expect(meeting.summary).toContain('harbour migration');
    expect(meeting.transcript).toBeUndefined();

    const read: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: any = await answer(client, 'get_meeting', {
        id: id.toUpperCase(),
        include_transcript: true,
        transcript_offset: offset,
        transcript_limit: 3,
      });
      expect(page.transcript.offset).toBe(offset);
      expect(page.transcript.total_segments).toBe(7);
      expect(page.transcript.segments.length).toBeLessThanOrEqual(3);
      read.push(...page.transcript.segments.map((s: any) => s.text));
      offset = page.transcript.next_offset;
    }
    expect(read).toEqual(segments.map((s) => s.content));

    const other = await app.createAccount();
    const stranger = await connect(other.key);
    expect(await toolError(stranger, 'get_meeting', { id })).toBe(`No meeting with id ${id} in this account`);
    expect(await toolError(client, 'get_meeting', { id: 'not-a-uuid' })).toContain('id must be a meeting id');
  });

  it('list_meetings pages through the account’s meetings with a cursor, filtered like the note list', async () => {
    const { key } = await app.createAccount();
    const ids: string[] = [];
    for (const platform of ['zoom', 'teams', 'zoom', 'microphone', 'zoom'] as const)
      ids.push(await app.recordNote(key, { title: `${platform} call`, platform }));
    const client = await connect(key);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await answer(client, 'list_meetings', { limit: 2, ...(cursor && { cursor }) });
      expect(page.meetings.length).toBeLessThanOrEqual(2);
      seen.push(...page.meetings.map((m: any) => m.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const teams = await answer(client, 'list_meetings', { platform: 'teams' });
    expect(teams.meetings.map((m: any) => m.id)).toEqual([ids[1]]);
    expect(await toolError(client, 'list_meetings', { cursor: 'bogus!' })).toContain('cursor is malformed');
    expect(await toolError(client, 'list_meetings', { platform: 'fax' })).toContain('platform');
  });

  it('speaks the key’s form: Form B names a microphone recording a phone call and ends a range inclusively', async () => {
    const a = await app.createAccount({ form: 'A' });
    const id = await app.recordNote(a.key, { title: 'Voice memo', platform: 'microphone' });
    const createdAt = (await app.request(`/v1/notes/${id}`, { key: a.key })).json.created_at as string;
    // The same account through a Form B key.
    const b = await app.createAccount({ form: 'B' });
    const bId = await app.recordNote(b.key, { title: 'Voice memo', platform: 'microphone' });
    const bCreatedAt = (await app.request(`/v1/notes/${bId}`, { key: b.key, form: 'A' })).json
      .created_at as string;

    const clientA = await connect(a.key);
    expect((await answer(clientA, 'get_meeting', { id })).platform).toBe('microphone');
    expect((await answer(clientA, 'list_meetings', { created_before: createdAt })).meetings).toEqual([]);
    expect(await toolError(clientA, 'list_meetings', { platform: 'fax' })).toContain('microphone');

    const clientB = await connect(b.key);
    expect((await answer(clientB, 'get_meeting', { id: bId })).platform).toBe('phone');
    const phone = await answer(clientB, 'list_meetings', { platform: 'phone', created_before: bCreatedAt });
    expect(phone.meetings.map((m: any) => m.id)).toEqual([bId]);
    expect(await toolError(clientB, 'list_meetings', { platform: 'microphone' })).toContain('platform');
    expect(
      await toolError(clientB, 'list_meetings', {
        created_after: '2026-02-01T00:00:00Z',
        created_before: '2026-01-01T00:00:00Z',
      }),
    ).toContain('created_after must not be later than created_before');
    expect(await toolError(clientB, 'list_meetings', { created_after: 'yesterday' })).toContain('ISO 8601');
  });

  it('list_action_items lists tasks across meetings, newest meeting first, by owner and in pages', async () => {
    const { key } = await app.createAccount();
    const first = await app.recordNote(key, { title: 'Planning', summary: SUMMARY });
    const second = await app.recordNote(key, {
      title: 'Follow-up',
      summary: {
        ...SUMMARY,
        action_items: [{ task: 'Send the invoice', owner: 'Cleo', deadline: '2026-04-01' }],
      },
    });
    await app.recordNote(key, { title: 'No summary' });
    const client = await connect(key);

    const all = await answer(client, 'list_action_items', {});
    expect(all.action_items.map((a: any) => [a.task, a.meeting_id])).toEqual([
      ['Send the invoice', second],
      ['Draft the harbour runbook', first],
      ['Book the maintenance window', first],
    ]);
    expect(all.action_items[0]).toMatchObject({
      owner: 'Cleo',
      deadline: '2026-04-01',
      meeting_title: 'Follow-up',
    });

    const ana = await answer(client, 'list_action_items', { owner: 'lopez' });
    expect(ana.action_items.map((a: any) => a.task)).toEqual(['Draft the harbour runbook']);

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await answer(client, 'list_action_items', { limit: 1, ...(cursor && { cursor }) });
      paged.push(...page.action_items.map((a: any) => a.task));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all.action_items.map((a: any) => a.task));
    expect(await toolError(client, 'list_action_items', { cursor: 'x.y.z' })).toContain(
      'cursor is malformed',
    );
  });

  it('keeps every result within its bound: long texts are cut and a long transcript stops early, with next_offset', async () => {
    const { key } = await app.createAccount();
    const huge = 'word '.repeat(5_000);
    const segments = Array.from({ length: 60 }, (_, i) => line(`Speaker ${i % 3}`, `${i} ${huge}`, i * 10));
    const id = await app.recordNote(key, {
      title: 'Very long meeting',
      segments,
      summary: {
        ...SUMMARY,
        context: huge,
        decisions: Array.from({ length: 40 }, () => huge),
        action_items: Array.from({ length: 40 }, () => ({
          task: huge,
          owner: 'o'.repeat(300),
          deadline: 'd'.repeat(300),
        })),
        participants: Array.from({ length: 500 }, (_, i) => `Person ${i}`),
      },
    });
    const client = await connect(key);
    const result = await call(client, 'get_meeting', { id, include_transcript: true, transcript_limit: 200 });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    const meeting = result.structuredContent;
    expect(meeting.truncated).toBe(true);
    expect(meeting.transcript.segments.length).toBeGreaterThan(0);
    expect(meeting.transcript.next_offset).toBe(meeting.transcript.segments.length);
    const next = await answer(client, 'get_meeting', {
      id,
      include_transcript: true,
      transcript_offset: meeting.transcript.next_offset,
    });
    expect(next.transcript.segments[0].text.startsWith(`${meeting.transcript.next_offset} word`)).toBe(true);

    for (const [tool, args] of [
      ['search_meetings', { query: 'word', limit: 20 }],
      ['list_meetings', { limit: 50 }],
      ['list_action_items', { limit: 50 }],
    ] as const) {
      const r = await call(client, tool, args);
      expect(r.isError, tool).toBeFalsy();
      expect(JSON.stringify(r.structuredContent).length, tool).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    }
  });

  it('reads a meeting as the resource meeting://{id}', async () => {
    const { key } = await app.createAccount();
    const id = await app.recordNote(key, { title: 'As a resource', summary: SUMMARY });
    const client = await connect(key);
    const { contents } = await client.readResource({ uri: `meeting://${id}` });
    expect(contents[0]?.mimeType).toBe('application/json');
    const [content] = contents;
    expect(content && 'text' in content).toBe(true);
    expect(JSON.parse((content as { text: string }).text)).toMatchObject({ id, title: 'As a resource' });
    const other = await app.createAccount();
    await expect((await connect(other.key)).readResource({ uri: `meeting://${id}` })).rejects.toThrow(
      `No meeting with id ${id} in this account`,
    );
  });
});

describe('who the MCP server refuses', () => {
  it('a missing or unknown key: 401 with a JSON-RPC error and WWW-Authenticate, and the SDK client fails to connect', async () => {
    const missingOrUnknown: Record<string, string>[] = [{}, { authorization: 'Bearer mn_live_nope' }];
    for (const headers of missingOrUnknown) {
      const res = await post(toolsList, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
      expect(res.json).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32001,
          message: 'Missing, invalid, revoked or expired API key',
          data: { code: 'invalid_api_key' },
        },
      });
    }
    await expect(connect('mn_live_nope')).rejects.toThrow('Missing, invalid, revoked or expired API key');
  });

  it('a key without early access: 403', async () => {
    const { key } = await app.createAccount({ earlyAccess: false });
    const res = await post(toolsList, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({
      code: -32003,
      message: 'API access is limited to early-access accounts',
    });
  });

  it('counts every request against the key’s limits like /v1, and refuses the one past the limit with 429 and Retry-After', async () => {
    const { key } = await app.createAccount({ plan: 'enterprise', dailyLimit: 3 });
    const auth = { authorization: `Bearer ${key}` };
    const first = await post(toolsList, auth);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await app.request('/v1/notes', { key })).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await post(toolsList, auth)).status).toBe(200);
    const refused = await post(toolsList, auth);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.json.error).toMatchObject({ code: -32029, data: { code: 'rate_limited' } });
    expect(refused.json.error.message).toMatch(/^Rate limit exceeded/);
  });

  it('GET and DELETE: 405 (no stream, no session); another site’s Origin: 403; a batch or non-JSON body: 400', async () => {
    const { key } = await app.createAccount();
    const auth = { authorization: `Bearer ${key}` };
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${app.url}/mcp`, { method, headers: auth });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()).error.code).toBe(-32600);
    }
    const foreign = await post(toolsList, { ...auth, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.json.error.message).toContain('Origin');
    expect((await post(toolsList, { ...auth, origin: app.url })).status).toBe(200);
    expect((await post([toolsList, toolsList], auth)).status).toBe(400);
    expect((await post('{"jsonrpc":', auth)).json.error.code).toBe(-32600);
    const notJsonRpc = await post({ hello: 'world' }, auth);
    expect(notJsonRpc.status).toBe(400);
    expect(notJsonRpc.json.error.code).toBe(-32700);
  });
});
