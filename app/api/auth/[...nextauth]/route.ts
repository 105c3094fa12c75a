import { routeHandler } from '@/server/runtime/route-handler';

// /api/auth/* – next-auth (sign-in, sign-out, session, CSRF)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handler = routeHandler('auth');
export { handler as GET, handler as POST };
