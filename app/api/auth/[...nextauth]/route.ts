import { appHandlers } from '@/server/runtime/handlers';

// /api/auth/* – next-auth (sign-in, sign-out, session, CSRF)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handler = (request: Request) => appHandlers().auth(request);
export { handler as GET, handler as POST };
