import { routeHandler } from '@/server/runtime/route-handler';

// /mcp – the MCP server for AI agents (server/mcp/mcp-handler.ts).
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = routeHandler('mcp');
// Every method, so that Next answers none of them itself: POST is served, the rest are 405.
export {
  handle as GET,
  handle as HEAD,
  handle as OPTIONS,
  handle as POST,
  handle as PUT,
  handle as PATCH,
  handle as DELETE,
};
