import { routeHandler } from '@/server/runtime/route-handler';

// GET|POST /api/cron/dispatch – Vercel Cron runs due background work here (docs/rules.md#background-work)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const maxDuration = 60;

const handle = routeHandler('cron');
export { handle as GET, handle as POST };
