'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, EmptyState, ErrorMessage, Loading } from '../ui/card';
import { RelativeTime, useNow } from '../ui/relative-time';
import { useToast } from '../ui/toast';
import { type ApiKey, maskedKey } from './api-key';
import { KeyExpiry } from './key-expiry';
import { KeyUsageSummary } from './key-usage';
import { RenameKeyDialog } from './rename-key-dialog';
import { RevokeKeyDialog } from './revoke-key-dialog';
import { RollKeyDialog } from './roll-key-dialog';

/** Usage, countdowns and keys whose overlap ended are re-read while the page is open. */
const REFRESH_MS = 30_000;

/**
 * One table for every width: below `lg` each row becomes a card with its own labels, so there is
 * a single element (and a single test id) per key.
 */
export function KeyList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  // Re-rendered every REFRESH_MS by useNow; read the clock itself, as its value may be that old
  // when new data (a key just rolled) arrives.
  useNow(REFRESH_MS);
  const now = Date.now();
  const keys = useQuery(trpc.keys.list.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  // The key being rolled, as it was when its Roll button was pressed: the dialog outlives its row
  // (a key rolled with no overlap leaves the list while its replacement is on screen).
  const [rolling, setRolling] = useState<{ key: ApiKey; open: boolean; opened: number } | null>(null);
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      onSuccess: async ({ replacedRevoked }, { id }) => {
        const listed = queryClient.getQueryData(trpc.keys.list.queryKey());
        const revoked = listed?.find((k) => k.id === id);
        const replaced = listed?.find((k) => k.id === replacedRevoked);
        const what = revoked ? `Key “${revoked.name}” revoked` : 'Key revoked';
        toast(
          replacedRevoked
            ? `${what}, and the key it replaced${replaced ? `, ${maskedKey(replaced)},` : ''} with it`
            : what,
        );
        queryClient.setQueryData(trpc.keys.list.queryKey(), (old) =>
          old?.filter((k) => k.id !== id && k.id !== replacedRevoked),
        );
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
      },
    }),
  );

  /** Back to the key's Roll button, its Rename button once rolled, or the list's heading once gone. */
  function focusAfterRoll(event: Event, keyId: string) {
    event.preventDefault();
    const target =
      document.querySelector<HTMLElement>(`[data-testid="roll-key-${keyId}"]`) ??
      document.querySelector<HTMLElement>(`[data-testid="rename-key-${keyId}"]`) ??
      document.getElementById('keys-heading');
    target?.focus();
  }

  if (keys.isPending) return <Loading label="Loading keys…" />;
  if (keys.isError) {
    return (
      <div className="space-y-3">
        <ErrorMessage error={keys.error} onRetry={() => keys.refetch()} retrying={keys.isFetching} />
      </div>
    );
  }

  const rollDialog = rolling ? (
    <RollKeyDialog
      key={rolling.opened}
      apiKey={rolling.key}
      open={rolling.open}
      onOpenChange={(open) => setRolling((r) => (r ? { ...r, open } : r))}
      onCloseAutoFocus={(e) => focusAfterRoll(e, rolling.key.id)}
    />
  ) : null;

  if (keys.data.length === 0) {
    return (
      <>
        <EmptyState title="No API keys yet">
          Create one above to call the API from your own code. Each key belongs to this account only.
        </EmptyState>
        {rollDialog}
      </>
    );
  }

  return (
    <div className="space-y-3">
      <ErrorMessage error={revoke.error} />
      <table className="block w-full text-sm lg:table lg:rounded-lg lg:bg-white lg:shadow-sm lg:ring-1 lg:ring-zinc-200">
        <caption className="sr-only">Your API keys</caption>
        <thead className="hidden border-b border-zinc-200 text-left text-xs font-medium whitespace-nowrap uppercase tracking-wide text-zinc-500 lg:table-header-group">
          <tr>
            <th scope="col" className="px-3 py-3 first:pl-4">
              Name
            </th>
            <th scope="col" className="px-3 py-3">
              Key
            </th>
            <th scope="col" className="px-3 py-3">
              Created
            </th>
            <th scope="col" className="px-3 py-3">
              Last used
            </th>
            <th scope="col" className="px-3 py-3">
              Requests
            </th>
            <th scope="col" className="px-3 py-3 last:pr-4">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="block space-y-3 lg:table-row-group lg:space-y-0 lg:divide-y lg:divide-zinc-100">
          {keys.data.map((key) => {
            const revoking = revoke.isPending && revoke.variables?.id === key.id;
            const replacement = key.rolledTo ? keys.data.find((k) => k.id === key.rolledTo) : undefined;
            // The key this one replaced, while its overlap lasts (the list is re-read every 30 s).
            const replaced = keys.data.find(
              (k) => k.rolledTo === key.id && (k.expiresAt === null || Date.parse(k.expiresAt) > now),
            );
            return (
              <tr
                key={key.id}
                data-testid="key-row"
                data-key-id={key.id}
                className="block rounded-lg bg-white p-4 shadow-sm ring-1 ring-zinc-200 lg:table-row lg:rounded-none lg:p-0 lg:shadow-none lg:ring-0"
              >
                <td className="block pb-2 lg:table-cell lg:py-3 lg:pr-3 lg:pl-4 lg:align-middle">
                  <span data-testid="key-name" className="block font-medium break-words text-zinc-900">
                    {key.name}
                  </span>
                  {key.expiresAt || replaced ? (
                    <span className="mt-1 block space-y-1">
                      <KeyExpiry
                        expiresAt={key.expiresAt}
                        rolled={key.rolledTo !== null}
                        replacedBy={replacement ? maskedKey(replacement) : null}
                        now={now}
                      />
                      {replaced ? (
                        <span data-testid="key-replaces" className="block text-xs text-zinc-600">
                          Replaces <code className="font-mono text-zinc-800">{maskedKey(replaced)}</code>
                        </span>
                      ) : null}
                    </span>
                  ) : null}
                </td>
                <Cell label="Key">
                  <span className="inline-flex flex-wrap items-center justify-end gap-2 lg:justify-start">
                    <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs whitespace-nowrap text-zinc-800">
                      {maskedKey(key)}
                    </code>
                    <Badge>Form {key.form}</Badge>
                  </span>
                </Cell>
                <Cell label="Created">
                  <RelativeTime iso={key.createdAt} now={now} />
                </Cell>
                <Cell label="Last used">
                  {key.lastUsedAt ? (
                    <span data-testid="key-last-used">
                      <RelativeTime iso={key.lastUsedAt} now={now} />
                    </span>
                  ) : (
                    <span data-testid="key-last-used" className="text-zinc-500">
                      never
                    </span>
                  )}
                </Cell>
                <Cell label="Requests">
                  <KeyUsageSummary keyName={key.name} usage={key.usage} />
                </Cell>
                <td className="mt-3 block lg:mt-0 lg:table-cell lg:py-3 lg:pr-4 lg:pl-3 lg:text-right">
                  <div className="flex flex-wrap gap-2 lg:flex-nowrap lg:justify-end">
                    <RenameKeyDialog apiKey={key} />
                    {key.rolledTo ? null : (
                      <Button
                        variant="secondary"
                        data-testid={`roll-key-${key.id}`}
                        aria-label={`Roll key ${key.name}`}
                        onClick={() => setRolling((r) => ({ key, open: true, opened: (r?.opened ?? 0) + 1 }))}
                      >
                        Roll
                      </Button>
                    )}
                    <RevokeKeyDialog
                      apiKey={key}
                      replaced={replaced}
                      replacement={replacement}
                      pending={revoking}
                      onConfirm={(alsoRevokeReplaced) => revoke.mutate({ id: key.id, alsoRevokeReplaced })}
                    />
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rollDialog}
    </div>
  );
}

/** A table cell that carries its own label below `lg`, where the header row is hidden. */
function Cell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td className="flex items-center justify-between gap-4 py-1 lg:table-cell lg:px-3 lg:py-3 lg:align-middle">
      <span className="text-xs text-zinc-500 lg:hidden">{label}</span>
      <span className="min-w-0 text-right lg:text-left">{children}</span>
    </td>
  );
}
