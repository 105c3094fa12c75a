import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * False while React hydrates the server's HTML (and on the server), true once it has.
 *
 * A page's content hydrates in its own Suspense boundary, possibly after the frame around it has
 * hydrated and its queries have answered: on a busy machine the page's code can arrive after the
 * answer. A page that shares a query with the frame (the navigation asks for the account, as the
 * Account and API keys pages do) would then render the cached answer in its first render, where
 * the server rendered "Loading": React reports a hydration error and renders the page again. Such
 * a page shows the query's data only once hydrated.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
