import type { QueryClient, QueryFilters } from '@tanstack/react-query';

/**
 * Reads a list again after something was added to it, even when its first load is still on its
 * way. That load may have been answered before the addition, and invalidating alone would only
 * wait for it: TanStack Query cancels a fetch in flight for a query that already has data, not for
 * one still loading. The list would then miss the new item until its next timed re-read.
 */
export async function readAgain(queryClient: QueryClient, filters: QueryFilters): Promise<void> {
  await queryClient.cancelQueries(filters);
  await queryClient.invalidateQueries(filters);
}
