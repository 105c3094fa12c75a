'use client';

import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter } from '@/server/api/root';

// The settings app's typed tRPC hooks (types only cross into the client bundle, no server code).
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
