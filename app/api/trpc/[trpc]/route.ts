import { routeHandler } from '@/server/runtime/route-handler';

// /api/trpc/* – the settings app's procedures, scoped to the signed-in account
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handler = routeHandler('trpc');
export { handler as GET, handler as POST };
