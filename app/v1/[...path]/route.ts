import { appHandlers } from '@/server/runtime/handlers';

// /v1/* – the REST API in both forms (server/rest/v1-handler.ts)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = (request: Request) => appHandlers().v1(request);
export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };
