import { routeHandler } from '@/server/runtime/route-handler';

// /api/recorder and /api/recorder/* – the recorder API (docs/rules.md#recorder-api)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = routeHandler('recorder');
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
