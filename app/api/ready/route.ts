import { routeHandler } from '@/server/runtime/route-handler';

// GET /api/ready – database, migrations and model checked, and the background backlog; 503 with
// the reasons when the instance cannot serve (server/health/health-handler.ts)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = routeHandler('ready');
export { handle as GET, handle as HEAD };
