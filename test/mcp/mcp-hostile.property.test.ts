import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hostileString, jsonText, PROTO_NAMES, withKey } from '../security/hostile-values';
import { createApiKey } from '../../server/accounts/accounts';
import { startTestApp, type TestApp } from '../support/test-app';

// Hostile input to /mcp, property-based: random JSON-RPC messages, and tool calls whose argument
// names and values are random, hostile (NUL, lone surrogates, prototype names, huge strings,
// impossible dates) or valid-looking. Never a 5xx; every answer is JSON-RPC with a request id;
// a tool's failure is a tool error; and no success ever carries another account's meeting.
//
// It runs once with a fixed seed and once with a random one that it prints; to replay a
// failure, set FUZZ_SEED to the printed seed.

const FIXED_SEED = 20_261_127;
const RUNS_PER_SEED = 250;

let app: TestApp;
/** One account, with a key of each form. */
const keys: Record<'A' | 'B', string> = { A: '', B: '' };
let ownId: string;
let foreignId: string;

const SUMMARY = {
  context: 'Budget review.',
  decisions: ['Keep the budget'],
  action_items: [{ task: 'Send the figures', owner: 'Ana', deadline: 'Friday' }],
  participants: ['Ana', 'Ben'],
  next_step: null,
  budget_mentioned: null,
  sentiment: null,
};

beforeAll(async () => {
  // The API's clock moves a second per request, so that Form B's 100 requests a minute per key
  // never refuse the run's requests.
  let ticks = 0;
  const start = Date.now();
  app = await startTestApp({ now: () => new Date(start + 1000 * ticks++) });
  const own = await app.createAccount({ form: 'B', plan: 'enterprise', dailyLimit: 1_000_000 });
  keys.B = own.key;
  keys.A = (await createApiKey(app.db, { accountId: own.account.id, form: 'A' })).plaintext;
  ownId = await app.recordNote(keys.B, { title: 'Budget review', summary: SUMMARY });
  const stranger = await app.createAccount();
  foreignId = await app.recordNote(stranger.key, { title: 'Budget review elsewhere', summary: SUMMARY });
});
afterAll(() => app?.close());

const TOOL_ARGS: Record<string, string[]> = {
  search_meetings: ['query', 'limit', 'created_after', 'created_before', 'platform', 'speaker'],
  get_meeting: ['id', 'include_transcript', 'transcript_offset', 'transcript_limit'],
  list_meetings: ['limit', 'cursor', 'created_after', 'created_before', 'platform'],
  list_action_items: ['owner', 'limit', 'cursor', 'created_after', 'created_before', 'platform'],
};

const value = () =>
  fc.oneof(
    { weight: 3, arbitrary: hostileString('body') },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'budget',
        'Ana',
        'phone',
        'microphone',
        '2026-01-01T00:00:00Z',
        0,
        -1,
        1,
        20,
        21,
        2 ** 31,
        1.5,
        true,
      ),
    },
    { weight: 1, arbitrary: fc.constant(null).map(() => foreignId) },
    { weight: 1, arbitrary: fc.constant(null).map(() => ownId) },
  );

/** A value the argument could well take, so that many calls reach the tool's own code. */
const plausible = (name: string): fc.Arbitrary<unknown> => {
  switch (name) {
    case 'query':
    case 'owner':
    case 'speaker':
      return fc.oneof(
        fc.constantFrom('budget', 'Ana', 'figures', 'send the figures'),
        fc.string({ minLength: 1 }),
      );
    case 'limit':
    case 'transcript_limit':
      return fc.integer({ min: 1, max: 20 });
    case 'transcript_offset':
      return fc.nat({ max: 5 });
    case 'include_transcript':
      return fc.boolean();
    case 'created_after':
    case 'created_before':
      return fc
        .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'platform':
      return fc.constantFrom('meet', 'zoom', 'teams', 'phone');
    case 'id':
      return fc.constantFrom(ownId, foreignId, ownId.toUpperCase());
    default:
      return fc.string();
  }
};

const toolCall = fc
  .constantFrom(...Object.keys(TOOL_ARGS))
  .chain((tool) =>
    fc.record({
      name: fc.oneof(
        { weight: 8, arbitrary: fc.constant(tool) },
        fc.string(),
        fc.constantFrom(...PROTO_NAMES),
      ),
      args: fc.tuple(
        ...TOOL_ARGS[tool]!.map((arg) =>
          fc.option(
            fc
              .oneof({ weight: 4, arbitrary: plausible(arg) }, { weight: 1, arbitrary: value() })
              .map((v) => [arg, v] as const),
            { freq: 2 },
          ),
        ),
      ),
      extra: fc.array(fc.tuple(fc.oneof(fc.string(), fc.constantFrom(...PROTO_NAMES)), value()), {
        maxLength: 1,
      }),
    }),
  )
  .map(({ name, args, extra }) => {
    let argsObject: Record<string, unknown> = {};
    for (const pair of args) if (pair) argsObject = withKey(argsObject, pair[0], pair[1]);
    for (const [k, v] of extra) argsObject = withKey(argsObject, k, v);
    return { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: argsObject } };
  });

const anyMessage = fc.record({
  jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
  id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
  method: fc.oneof(
    fc.constantFrom(
      'tools/call',
      'tools/list',
      'resources/read',
      'resources/templates/list',
      'initialize',
      'ping',
      'prompts/list',
      'completion/complete',
    ),
    fc.string(),
    fc.constantFrom(...PROTO_NAMES),
  ),
  params: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({
      uri: fc.oneof(
        hostileString('body'),
        fc.constant(null).map(() => `meeting://${foreignId}`),
      ),
    }),
  ),
});

const MESSAGE = fc.tuple(
  fc.constantFrom('A' as const, 'B' as const),
  fc.oneof({ weight: 3, arbitrary: toolCall }, { weight: 1, arbitrary: anyMessage }),
);

/** What the answers were, so that a run that never reached a tool cannot pass. */
const outcomes = { success: 0, toolError: 0, rpcError: 0 };

async function check([form, message]: ['A' | 'B', unknown]) {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${keys[form]}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: jsonText(message),
  });
  const text = await res.text();
  expect(res.status, text).toBeLessThan(500);
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  if (res.status === 202) return; // a notification: nothing to answer
  const body = JSON.parse(text);
  expect(body.jsonrpc, text).toBe('2.0');
  expect('result' in body || 'error' in body, text).toBe(true);
  if (body.error) {
    outcomes.rpcError++;
    expect(body.error.message).not.toMatch(/\n\s+at /);
    expect(body.error.message).not.toMatch(/Internal error/);
  }
  const result = body.result;
  if (result?.isError) {
    outcomes.toolError++;
    expect(result.content[0].text).not.toMatch(/\n\s+at /);
    // A fault of ours would be an internal error: hostile input must never reach one.
    expect(result.content[0].text).not.toMatch(/Internal error/);
    expect(result.content[0].text).not.toContain('Budget review elsewhere');
  } else if (result) {
    outcomes.success++;
    // A success never holds the other account's meeting, whatever was asked.
    expect(text).not.toContain(foreignId);
    expect(text).not.toContain('Budget review elsewhere');
  }
}

it('answers hostile MCP messages and tool arguments without a 5xx or another account’s data (fixed seed)', async () => {
  await fc.assert(fc.asyncProperty(MESSAGE, check), {
    seed: FIXED_SEED,
    numRuns: RUNS_PER_SEED,
    endOnFailure: true,
  });
  expect(outcomes.success).toBeGreaterThan(RUNS_PER_SEED / 10);
  expect(outcomes.toolError).toBeGreaterThan(RUNS_PER_SEED / 10);
  expect(outcomes.rpcError).toBeGreaterThan(0);
  console.log('MCP fuzz outcomes (fixed seed):', outcomes);
});

it('answers hostile MCP messages and tool arguments without a 5xx or another account’s data (random seed)', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`MCP fuzz seed: ${seed}`);
  await fc.assert(fc.asyncProperty(MESSAGE, check), { seed, numRuns: RUNS_PER_SEED, endOnFailure: true });
});
