import { routeHandler } from '@/server/runtime/route-handler';

// /v1 and /v1/* – the REST API in both forms (server/rest/v1-handler.ts); an optional
// catch-all, so that /v1 itself is answered in the API's shape too
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = routeHandler('v1');
// Every method, HEAD and OPTIONS included, so that Next answers none of them itself (every
// answer carries X-Request-Id and Cache-Control: no-store).
export {
  handle as GET,
  handle as HEAD,
  handle as OPTIONS,
  handle as POST,
  handle as PUT,
  handle as PATCH,
  handle as DELETE,
};
