import NextAuth from 'next-auth';
import { authOptions } from '@/server/auth/auth-options';

// /api/auth/* – next-auth (sign-in, sign-out, session, CSRF)
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handler = (request: Request, context: { params: Promise<{ nextauth: string[] }> }) => NextAuth(authOptions())(request, context);
export { handler as GET, handler as POST };
