import { appHandlers } from '@/server/runtime/handlers';

// GET|POST /api/cron/dispatch – Vercel Cron runs due background work here (D20)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const maxDuration = 60;

const handle = (request: Request) => appHandlers().cron(request);
export { handle as GET, handle as POST };
