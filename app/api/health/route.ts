import { routeHandler } from '@/server/runtime/route-handler';

// GET /api/health – the process is up; touches nothing else (server/health/health-handler.ts)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = routeHandler('health');
export { handle as GET, handle as HEAD };
