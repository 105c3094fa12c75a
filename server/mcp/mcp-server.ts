import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { registerMeetingTools, type ToolContext } from './meeting-tools';

// One MCP request answered by the SDK: a server with the caller's tools and a stateless
// transport in JSON mode, both made for this request and closed after it (the SDK's way to be
// stateless: no request of one caller ever reaches another's server). Loaded by mcp-handler.ts
// with the first MCP request, so a server that never sees one never loads the SDK.

const SERVER_INFO = { name: 'meeting-notes', version: '1.0.0' };

const INSTRUCTIONS =
  "Tools over the user's recorded meetings: search_meetings finds moments by meaning, get_meeting reads one meeting (summary, action items, transcript in pages), list_meetings and list_action_items list them by date. Results are bounded in size; follow next_cursor or next_offset to read on.";

export async function answerMcpRequest(
  request: Request,
  body: Record<string, unknown> | undefined,
  context: ToolContext,
): Promise<Response> {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  registerMeetingTools(server, context);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}
