import { routeHandler } from '@/server/runtime/route-handler';

// GET /api/recorder/openapi.json – the OpenAPI 3.1 document of the recorder API (public, unlike
// the recorder's own routes beside it)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = routeHandler('recorderOpenapi');
