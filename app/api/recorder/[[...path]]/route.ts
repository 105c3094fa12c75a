import { appHandlers } from '@/server/runtime/handlers';

// /api/recorder and /api/recorder/* – how the desktop recorder delivers meetings (D16)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = (request: Request) => appHandlers().recorder(request);
// Every method, HEAD and OPTIONS included, so that Next answers none of them itself (issue 8:
// every answer carries X-Request-Id and Cache-Control: no-store).
export {
  handle as GET,
  handle as HEAD,
  handle as OPTIONS,
  handle as POST,
  handle as PUT,
  handle as PATCH,
  handle as DELETE,
};
