import { routeHandler } from '@/server/runtime/route-handler';

// GET /api/openapi.json?form=A|B – the OpenAPI 3.1 document of one form
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = routeHandler('openapi');
