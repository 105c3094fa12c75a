import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { getServerSession } from 'next-auth';
import { appRouter } from '@/server/api/root';
import { authOptions } from '@/server/auth/auth-options';
import { getDatabase } from '@/server/db';
import { appServices } from '@/server/runtime/handlers';

// /api/trpc/* – the settings app's procedures, scoped to the signed-in account
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: async () => {
      const session = await getServerSession(authOptions());
      return { db: (await getDatabase()).db, services: appServices(), accountId: session?.accountId ?? null };
    },
  });

export { handler as GET, handler as POST };
