'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, EmptyState, ErrorMessage, Loading } from '../ui/card';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { formatDateTime } from '../ui/relative-time';
import { DeliveryChart } from './delivery-chart';
import { DeliveryLog } from './delivery-log';
import { SignatureHelp } from './signature-help';
import { EndpointStatusBadge, EventBadges, type Endpoint } from './webhook-shared';

/** How often the endpoint, chart and log are re-read, so a test event shows up without a reload. */
const REFRESH_MS = 3_000;

export function EndpointPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const [deleted, setDeleted] = useState(false);
  const endpoint = useQuery(
    trpc.webhooks.get.queryOptions({ id }, { enabled: !deleted, refetchInterval: REFRESH_MS }),
  );

  return (
    <div className="space-y-6">
      <Link href="/webhooks" className="inline-block text-sm font-medium text-indigo-700 hover:underline">
        ← Webhooks
      </Link>
      {deleted ? (
        <Loading label="Endpoint deleted. Returning to the list…" />
      ) : endpoint.isPending ? (
        <Loading label="Loading endpoint…" />
      ) : endpoint.isError ? (
        endpoint.error.data?.code === 'NOT_FOUND' || endpoint.error.data?.code === 'BAD_REQUEST' ? (
          <EmptyState title="Endpoint not found">
            <p>It may have been deleted. Go back to the list of webhook endpoints.</p>
          </EmptyState>
        ) : (
          <ErrorMessage error={endpoint.error} />
        )
      ) : (
        <EndpointDetails endpoint={endpoint.data} onDeleted={() => setDeleted(true)} />
      )}
    </div>
  );
}

function EndpointDetails({ endpoint, onDeleted }: { endpoint: Endpoint; onDeleted(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [notice, setNotice] = useState<string | null>(null);

  const refreshEndpoint = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: endpoint.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
    ]);

  const reenable = useMutation(
    trpc.webhooks.reenable.mutationOptions({
      onSuccess: async (updated) => {
        queryClient.setQueryData(trpc.webhooks.get.queryKey({ id: endpoint.id }), updated);
        setNotice('Endpoint re-enabled: new events will be delivered to it.');
        await refreshEndpoint();
      },
    }),
  );

  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async () => {
        setNotice('Test event queued');
        await queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter());
      },
    }),
  );

  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async () => {
        router.push('/webhooks');
        onDeleted();
        // The list must not flash the deleted endpoint while it refetches.
        queryClient.setQueryData(trpc.webhooks.list.queryKey(), (list) =>
          list?.filter((e) => e.id !== endpoint.id),
        );
        queryClient.removeQueries({ queryKey: trpc.webhooks.get.queryKey({ id: endpoint.id }) });
        queryClient.removeQueries(trpc.webhooks.deliveries.pathFilter());
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      },
    }),
  );

  const actionError = reenable.error ?? sendTest.error ?? remove.error;

  return (
    <>
      <header className="space-y-3">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="min-w-0 break-all font-mono text-lg font-semibold tracking-tight sm:text-xl">
            {endpoint.url}
          </h1>
          <EndpointStatusBadge active={endpoint.active} />
        </div>
        <EventBadges events={endpoint.events} />
        <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-zinc-600">
          <div className="flex gap-1">
            <dt>Created</dt>
            <dd className="text-zinc-900">
              <time dateTime={endpoint.createdAt}>{formatDateTime(endpoint.createdAt)}</time>
            </dd>
          </div>
          <div className="flex gap-1">
            <dt>Secret format</dt>
            <dd className="text-zinc-900">{endpoint.form}</dd>
          </div>
          <div className="flex gap-1">
            <dt>ID</dt>
            <dd className="break-all font-mono text-xs leading-5 text-zinc-900">{endpoint.id}</dd>
          </div>
        </dl>
      </header>

      {!endpoint.active ? (
        <div
          data-testid="inactive-notice"
          className="rounded-lg bg-red-50 p-4 ring-1 ring-inset ring-red-200 sm:p-5"
        >
          <h2 className="text-sm font-semibold text-red-900">Deliveries are stopped</h2>
          <p className="mt-1 text-sm text-red-800">
            This endpoint was deactivated after 4 failed deliveries
            {endpoint.deactivatedAt ? (
              <>
                {' '}
                on <time dateTime={endpoint.deactivatedAt}>{formatDateTime(endpoint.deactivatedAt)}</time>
              </>
            ) : null}
            . Events that occurred while it was inactive are not replayed.
          </p>
          <p className="mt-1 text-sm text-red-800">
            Check the failed attempts below, fix the cause on your server, then re-enable it.
          </p>
          <Button
            className="mt-3"
            data-testid="reenable-endpoint"
            onClick={() => reenable.mutate({ id: endpoint.id })}
            disabled={reenable.isPending}
          >
            {reenable.isPending ? 'Re-enabling…' : 'Re-enable'}
          </Button>
        </div>
      ) : null}

      <div className="flex flex-wrap items-center gap-3">
        <Button
          variant="secondary"
          data-testid="send-test-event"
          disabled={!endpoint.active || sendTest.isPending}
          onClick={() => {
            setNotice(null);
            sendTest.mutate({ id: endpoint.id });
          }}
        >
          {sendTest.isPending ? 'Sending…' : 'Send test event'}
        </Button>
        <ConfirmDialog
          trigger={
            <Button variant="danger" data-testid="delete-endpoint" disabled={remove.isPending}>
              {remove.isPending ? 'Deleting…' : 'Delete'}
            </Button>
          }
          title="Delete this endpoint?"
          description={
            <>
              <span className="break-all font-mono">{endpoint.url}</span> is removed at once and receives no
              further events. In-flight retries are cancelled. This cannot be undone.
            </>
          }
          confirmLabel="Delete endpoint"
          pending={remove.isPending}
          onConfirm={() => remove.mutate({ id: endpoint.id })}
        />
        <p
          role="status"
          aria-live="polite"
          data-testid="endpoint-action-status"
          className="text-sm text-zinc-600"
        >
          {notice}
        </p>
        {!endpoint.active ? (
          <p className="w-full text-xs text-zinc-500">
            Re-enable the endpoint to send test events or resend deliveries.
          </p>
        ) : null}
      </div>
      <ErrorMessage error={actionError} />

      <Card>
        <h2 className="text-base font-semibold">Recent delivery success</h2>
        <p className="mb-3 text-xs text-zinc-500">The last 30 attempts, oldest on the left.</p>
        <DeliveryChart endpointId={endpoint.id} refetchInterval={REFRESH_MS} />
      </Card>

      <DeliveryLog endpointId={endpoint.id} active={endpoint.active} refetchInterval={REFRESH_MS} />

      <SignatureHelp />
    </>
  );
}
