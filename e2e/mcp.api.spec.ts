import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BrowserSession } from '../test/support/http-session';
import { recordNote } from '../test/support/recorder';
import { demoLogin, readState } from './state';

// The MCP server of `npm start`, as AI agents reach it: the official SDK's client over Streamable
// HTTP, and the MCP Inspector's command line, both with the demo account's API key.

const state = readState();
const demo = demoLogin(state);
const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

async function connect(baseURL: string, key: string) {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseURL), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

const SUMMARY = {
  context: 'The team chose a vendor for the observatory dome repair.',
  decisions: ['Hire Northwind for the dome repair'],
  action_items: [{ task: 'Sign the Northwind contract', owner: 'Priya', deadline: 'next Tuesday' }],
  participants: ['Priya', 'Tomas'],
  next_step: null,
  budget_mentioned: null,
  sentiment: 'positive',
};

test('an agent lists the tools and calls each one, good arguments and hostile ones, never a transport error', async ({
  baseURL,
}) => {
  const id = await recordNote(baseURL!, demo.apiKey, {
    title: 'Observatory dome repair',
    segments: [
      {
        speaker: 'Priya',
        content: 'The observatory dome leaks whenever it rains.',
        start_time: 0,
        end_time: 4,
      },
      {
        speaker: 'Tomas',
        content: 'Northwind quoted the lowest price for the dome repair.',
        start_time: 4,
        end_time: 9,
      },
    ],
    summary: SUMMARY,
  });
  const client = await connect(baseURL!, demo.apiKey);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_meeting',
      'list_action_items',
      'list_meetings',
      'search_meetings',
    ]);

    const found = (await client.callTool({
      name: 'search_meetings',
      arguments: { query: 'observatory dome leaks', limit: 5 },
    })) as any;
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent.results[0]).toMatchObject({
      meeting_id: id,
      title: 'Observatory dome repair',
    });

    const meeting = (await client.callTool({
      name: 'get_meeting',
      arguments: { id, include_transcript: true },
    })) as any;
    expect(meeting.structuredContent).toMatchObject({
      id,
      decisions: SUMMARY.decisions,
      participants: ['Priya', 'Tomas'],
      transcript: { total_segments: 2, next_offset: null },
    });
    const listed = (await client.callTool({ name: 'list_meetings', arguments: { limit: 50 } })) as any;
    expect(listed.structuredContent.meetings.map((m: any) => m.id)).toContain(id);
    const tasks = (await client.callTool({
      name: 'list_action_items',
      arguments: { owner: 'priya' },
    })) as any;
    expect(tasks.structuredContent.action_items).toContainEqual(
      expect.objectContaining({ task: 'Sign the Northwind contract', meeting_id: id }),
    );

    // Hostile arguments: tool errors the model can read, never a failed request.
    for (const [name, args] of [
      ['search_meetings', { query: '\u0000' }],
      ['search_meetings', { query: 'x', limit: 10_000 }],
      ['get_meeting', { id: '00000000-0000-0000-0000-000000000000' }],
      ['get_meeting', { id: { $ne: null } }],
      ['list_meetings', { cursor: '../../etc/passwd' }],
      ['list_action_items', { created_after: '10000-01-01T00:00:00Z' }],
      ['no_such_tool', {}],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as any;
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(result.content[0].text).not.toMatch(/\n\s+at /);
    }
  } finally {
    await client.close();
    // The demo account is shared by the other specs, which count its notes: this one leaves none.
    await fetch(new URL(`/v1/notes/${id}`, baseURL), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${demo.apiKey}` },
    });
  }
});

test('a bad key and an exhausted limit are refused with clear errors', async ({ baseURL }) => {
  await expect(connect(baseURL!, 'mnk_not_a_real_key')).rejects.toThrow(
    'Missing, invalid, revoked or expired API key',
  );

  // A new Form B key of the demo account: Form B allows 100 requests a minute per key.
  const session = new BrowserSession(baseURL!);
  expect((await session.signIn(demo.email, demo.password)).error).toBeNull();
  const created = await session.mutate('keys.create', { name: `MCP limit ${Date.now()}`, form: 'B' });
  expect(created.status).toBe(200);
  const key = created.json.result.data.plaintext as string;
  const listTools = () =>
    fetch(new URL('/mcp', baseURL), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  // The window is a clock minute, so the run may cross into a new one: then the count starts again,
  // and the refusal comes within a second window's 100.
  let last = await listTools();
  let refused = await listTools();
  for (let i = 2; refused.status === 200 && i <= 200; i++) [last, refused] = [refused, await listTools()];
  expect(last.status).toBe(200);
  expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await refused.json()).error).toMatchObject({ code: -32029, data: { code: 'rate_limited' } });
});

test('the MCP Inspector CLI lists the tools and calls search_meetings', async ({ baseURL }) => {
  // The CLI finds its own package.json relative to the working directory (inspector-cli 1.0.3), so
  // it runs from its build folder.
  const cli = (...args: string[]) =>
    run(
      process.execPath,
      [
        'cli.js',
        '--cli',
        new URL('/mcp', baseURL).href,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${demo.apiKey}`,
        ...args,
      ],
      { cwd: path.join(root, 'node_modules/@modelcontextprotocol/inspector-cli/build'), timeout: 60_000 },
    );
  const listed = JSON.parse((await cli('--method', 'tools/list')).stdout);
  expect(listed.tools.map((t: { name: string }) => t.name)).toContain('search_meetings');
  const called = JSON.parse(
    (
      await cli(
        '--method',
        'tools/call',
        '--tool-name',
        'search_meetings',
        '--tool-arg',
        'query=dome repair vendor',
      )
    ).stdout,
  );
  expect(called.isError).toBeFalsy();
  expect(Array.isArray(called.structuredContent.results)).toBe(true);
});
