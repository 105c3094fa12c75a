import { routeHandler } from '@/server/runtime/route-handler';

// GET /api/asyncapi.json?form=A|B – the AsyncAPI 3.0 document of one form's webhook events
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = routeHandler('asyncapi');
