import { appHandlers } from '@/server/runtime/handlers';

// /api/trpc/* – the settings app's procedures, scoped to the signed-in account
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handler = (request: Request) => appHandlers().trpc(request);
export { handler as GET, handler as POST };
