'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { useState, type ReactNode } from 'react';
import type { AppRouter } from '@/server/api/root';
import { TRPCProvider } from './trpc';
import { ToastProvider } from './ui/toast';

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: false } },
      }),
  );
  // Queries are batched, at most 10 a request as the server allows (server/api/trpc-handler.ts).
  // Mutations go one a request: the ones that send email or spend a throttle refuse a batch.
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === 'mutation',
          true: httpLink({ url: '/api/trpc' }),
          false: httpBatchLink({ url: '/api/trpc', maxItems: 10 }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <ToastProvider>{children}</ToastProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
