'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { ReactNode } from 'react';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, EmptyState, ErrorMessage, Loading } from '../ui/card';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { RelativeTime } from '../ui/relative-time';
import { useToast } from '../ui/toast';

type ApiKey = inferRouterOutputs<AppRouter>['keys']['list'][number];

/** `mnk_3fZq…9aB2`: all that is kept of a key besides its hash. */
export const maskedKey = (key: Pick<ApiKey, 'prefix' | 'lastFour'>) => `${key.prefix}…${key.lastFour}`;

/**
 * One table for every width: on phones each row becomes a card with its own labels, so there is
 * a single element (and a single test id) per key.
 */
export function KeyList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const keys = useQuery(trpc.keys.list.queryOptions());
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      onSuccess: async (_result, { id }) => {
        const revoked = queryClient.getQueryData(trpc.keys.list.queryKey())?.find((k) => k.id === id);
        toast(revoked ? `Key “${revoked.name}” revoked` : 'Key revoked');
        queryClient.setQueryData(trpc.keys.list.queryKey(), (old) => old?.filter((k) => k.id !== id));
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
      },
    }),
  );

  if (keys.isPending) return <Loading label="Loading keys…" />;
  if (keys.isError) {
    return (
      <div className="space-y-3">
        <ErrorMessage error={keys.error} onRetry={() => keys.refetch()} retrying={keys.isFetching} />
      </div>
    );
  }
  if (keys.data.length === 0) {
    return (
      <EmptyState title="No API keys yet">
        Create one above to call the API from your own code. Each key belongs to this account only.
      </EmptyState>
    );
  }

  return (
    <div className="space-y-3">
      <ErrorMessage error={revoke.error} />
      <table className="block w-full text-sm md:table md:rounded-lg md:bg-white md:shadow-sm md:ring-1 md:ring-zinc-200">
        <caption className="sr-only">Your API keys</caption>
        <thead className="hidden border-b border-zinc-200 text-left text-xs font-medium uppercase tracking-wide text-zinc-500 md:table-header-group">
          <tr>
            <th scope="col" className="px-4 py-3">
              Name
            </th>
            <th scope="col" className="px-4 py-3">
              Key
            </th>
            <th scope="col" className="px-4 py-3">
              Form
            </th>
            <th scope="col" className="px-4 py-3">
              Created
            </th>
            <th scope="col" className="px-4 py-3">
              Last used
            </th>
            <th scope="col" className="px-4 py-3">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="block space-y-3 md:table-row-group md:space-y-0 md:divide-y md:divide-zinc-100">
          {keys.data.map((key) => {
            const revoking = revoke.isPending && revoke.variables?.id === key.id;
            return (
              <tr
                key={key.id}
                data-testid="key-row"
                data-key-id={key.id}
                className="block rounded-lg bg-white p-4 shadow-sm ring-1 ring-zinc-200 md:table-row md:rounded-none md:p-0 md:shadow-none md:ring-0"
              >
                <Cell label="Name">
                  <span className="font-medium break-words text-zinc-900">{key.name}</span>
                </Cell>
                <Cell label="Key">
                  <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs whitespace-nowrap text-zinc-800">
                    {maskedKey(key)}
                  </code>
                </Cell>
                <Cell label="Form">
                  <Badge>Form {key.form}</Badge>
                </Cell>
                <Cell label="Created">
                  <RelativeTime iso={key.createdAt} />
                </Cell>
                <Cell label="Last used">
                  {key.lastUsedAt ? (
                    <RelativeTime iso={key.lastUsedAt} />
                  ) : (
                    <span className="text-zinc-500">never</span>
                  )}
                </Cell>
                <td className="mt-3 block md:mt-0 md:table-cell md:px-4 md:py-3 md:text-right">
                  <ConfirmDialog
                    title="Revoke key?"
                    description={
                      <>
                        The next API call with it gets 401. This revokes “{key.name}” (
                        <code className="font-mono">{maskedKey(key)}</code>) for good.
                      </>
                    }
                    confirmLabel="Revoke key"
                    pending={revoking}
                    onConfirm={() => revoke.mutate({ id: key.id })}
                    trigger={
                      <Button
                        variant="secondary"
                        data-testid={`revoke-key-${key.id}`}
                        disabled={revoking}
                        aria-label={`Revoke key ${key.name}`}
                      >
                        {revoking ? 'Revoking…' : 'Revoke'}
                      </Button>
                    }
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** A table cell that carries its own label on phones, where the header row is hidden. */
function Cell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td className="flex items-baseline justify-between gap-4 py-1 md:table-cell md:px-4 md:py-3 md:align-middle">
      <span className="text-xs text-zinc-500 md:hidden">{label}</span>
      <span className="min-w-0 text-right md:text-left">{children}</span>
    </td>
  );
}
