'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, EmptyState, ErrorMessage, Loading } from '../ui/card';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { formatDateTime } from '../ui/relative-time';
import { useToast } from '../ui/toast';
import { DeliveryChart } from './delivery-chart';
import { DeliveryLog } from './delivery-log';
import { EndpointEditDialog } from './endpoint-edit-dialog';
import { type Deactivation, EndpointRecoverDialog, queuedText } from './endpoint-recover-dialog';
import { EndpointRotateDialog } from './endpoint-rotate-dialog';
import { EndpointTestEvent } from './endpoint-test-event';
import { SignatureHelp } from './signature-help';
import { EndpointStatusBadge, EventBadges, InlineCopyButton, shortId, type Endpoint } from './webhook-shared';

/** How often the endpoint, chart and log are re-read, so a test event shows up without a reload. */
const REFRESH_MS = 3_000;

export function EndpointPage({ id, allowPrivateUrls }: { id: string; allowPrivateUrls: boolean }) {
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
          <ErrorMessage
            error={endpoint.error}
            onRetry={() => endpoint.refetch()}
            retrying={endpoint.isFetching}
          />
        )
      ) : (
        <EndpointDetails
          endpoint={endpoint.data}
          allowPrivateUrls={allowPrivateUrls}
          onDeleted={() => setDeleted(true)}
        />
      )}
    </div>
  );
}

function EndpointDetails({
  endpoint,
  allowPrivateUrls,
  onDeleted,
}: {
  endpoint: Endpoint;
  allowPrivateUrls: boolean;
  onDeleted(): void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const inactiveHintId = useId();
  const [notice, setNotice] = useState<string | null>(null);
  // What an action did stays beside the buttons and is announced once, by a toast.
  const announce = (text: string) => {
    setNotice(text);
    toast(text);
  };
  const [recoverOpen, setRecoverOpen] = useState(false);
  // Re-enabling clears the endpoint's deactivation on the server; the page keeps it to offer
  // recovering the deliveries of that outage.
  const [lastOutage, setLastOutage] = useState<Deactivation | null>(null);

  const refreshEndpoint = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: endpoint.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
    ]);

  const reenable = useMutation(
    trpc.webhooks.reenable.mutationOptions({
      onSuccess: async (updated) => {
        queryClient.setQueryData(trpc.webhooks.get.queryKey({ id: endpoint.id }), (current) =>
          current ? { ...current, ...updated, deactivatedBy: null } : current,
        );
        announce('Endpoint re-enabled: new events will be delivered to it.');
        await refreshEndpoint();
      },
    }),
  );

  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async (_result, { event }) => {
        announce(event ? `Test event queued: ${event}` : 'Test event queued');
        await queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter());
      },
    }),
  );

  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async () => {
        // The list takes the deleted endpoint's place in the history, so Back
        // does not land on "Endpoint not found".
        toast(`Endpoint deleted: ${endpoint.url}`);
        router.replace('/webhooks');
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

  function reenableEndpoint() {
    setNotice(null);
    const outage = {
      at: endpoint.deactivatedAt,
      deliveryId: endpoint.deactivatedBy?.deliveryId ?? null,
      deliveryCreatedAt: endpoint.deactivatedBy?.createdAt ?? null,
    };
    reenable.mutate({ id: endpoint.id }, { onSuccess: () => setLastOutage(outage) });
  }

  const actionError = reenable.error ?? sendTest.error ?? remove.error;

  return (
    <>
      <header className="space-y-3">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0 space-y-1">
            <div className="flex flex-wrap items-center gap-3">
              <h1 className="min-w-0 break-all font-mono text-lg font-semibold tracking-tight sm:text-xl">
                {endpoint.url}
              </h1>
              <EndpointStatusBadge active={endpoint.active} />
            </div>
            {endpoint.description ? (
              <p data-testid="endpoint-description" className="break-words text-sm text-zinc-700">
                {endpoint.description}
              </p>
            ) : null}
          </div>
          <div className="flex flex-wrap gap-2">
            <EndpointEditDialog
              endpoint={endpoint}
              allowPrivateUrls={allowPrivateUrls}
              onUpdated={() => announce('Endpoint updated')}
            />
            <EndpointRotateDialog endpoint={endpoint} onRotated={() => announce('Signing secret rotated')} />
          </div>
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
          <div className="flex min-w-0 gap-1">
            <dt>ID</dt>
            <dd className="min-w-0 break-all font-mono text-xs leading-5 text-zinc-900">{endpoint.id}</dd>
          </div>
        </dl>
        {endpoint.previousSecretExpiresAt ? (
          <p
            data-testid="previous-secret-notice"
            className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-inset ring-amber-200"
          >
            Previous secret valid until{' '}
            <time dateTime={endpoint.previousSecretExpiresAt} className="font-medium">
              {formatDateTime(endpoint.previousSecretExpiresAt)}
            </time>
            : until then every delivery carries two signatures, one with the previous secret and one with the
            current one.
          </p>
        ) : null}
      </header>

      {!endpoint.active ? (
        <div
          data-testid="inactive-notice"
          className="rounded-lg bg-red-50 p-4 ring-1 ring-inset ring-red-200 sm:p-5"
        >
          <h2 className="text-sm font-semibold text-red-900">Deliveries are stopped</h2>
          <DeactivationCause endpoint={endpoint} />
          <p className="mt-1 text-sm text-red-800">
            While the endpoint is inactive, new events are not queued for it, so they are never sent. Check
            the failed attempts below, fix the cause on your server, then re-enable it; after that you can
            recover the deliveries that failed.
          </p>
          <Button
            className="mt-3"
            data-testid="reenable-endpoint"
            onClick={reenableEndpoint}
            disabled={reenable.isPending}
          >
            {reenable.isPending ? 'Re-enabling…' : 'Re-enable'}
          </Button>
        </div>
      ) : lastOutage ? (
        <div
          data-testid="recover-hint"
          className="flex flex-wrap items-center gap-3 rounded-lg bg-indigo-50 p-4 ring-1 ring-inset ring-indigo-200"
        >
          <p className="min-w-0 grow basis-64 text-sm text-indigo-950">
            The endpoint is active again. The deliveries that failed or were cancelled when it was deactivated
            are not sent again by themselves: recover them to send them now.
          </p>
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => setRecoverOpen(true)}>Recover failed deliveries</Button>
            <Button variant="ghost" onClick={() => setLastOutage(null)}>
              Dismiss
            </Button>
          </div>
        </div>
      ) : null}

      <div className="flex flex-wrap items-center gap-3">
        <EndpointTestEvent
          events={endpoint.events}
          disabled={!endpoint.active}
          pending={sendTest.isPending}
          onSend={(event) => {
            setNotice(null);
            sendTest.mutate({ id: endpoint.id, event });
          }}
        />
        <EndpointRecoverDialog
          endpoint={endpoint}
          open={recoverOpen}
          onOpenChange={setRecoverOpen}
          deactivation={lastOutage}
          inactiveHintId={inactiveHintId}
          onRecovered={(queued) => {
            announce(queuedText(queued));
            setLastOutage(null);
          }}
        />
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
        <p data-testid="endpoint-action-status" className="min-w-0 text-sm text-zinc-600">
          {notice}
        </p>
        {!endpoint.active ? (
          <p id={inactiveHintId} className="w-full text-xs text-zinc-500">
            Re-enable the endpoint to send test events, resend deliveries or recover failed ones.
          </p>
        ) : null}
      </div>
      <ErrorMessage
        error={actionError}
        onRetry={
          sendTest.isError
            ? () => sendTest.variables && sendTest.mutate(sendTest.variables)
            : reenable.isError
              ? reenableEndpoint
              : remove.isError
                ? () => remove.mutate({ id: endpoint.id })
                : undefined
        }
      />

      <Card>
        <h2 className="text-base font-semibold">Recent delivery success</h2>
        <p className="mb-3 text-xs text-zinc-500">
          Every attempt of the last 24 hours or 7 days, succeeded and failed, oldest on the left.
        </p>
        <DeliveryChart endpointId={endpoint.id} refetchInterval={REFRESH_MS} />
      </Card>

      <DeliveryLog endpointId={endpoint.id} active={endpoint.active} refetchInterval={REFRESH_MS} />

      <SignatureHelp />
    </>
  );
}

/** Why the endpoint stopped: the delivery whose attempts all failed, and how the last one failed. */
function DeactivationCause({ endpoint }: { endpoint: Endpoint }) {
  const cause = endpoint.deactivatedBy;
  const at = endpoint.deactivatedAt ?? cause?.at ?? null;
  const when = at ? (
    <>
      {' '}
      on <time dateTime={at}>{formatDateTime(at)}</time>
    </>
  ) : null;
  if (!cause) {
    return (
      <p className="mt-1 text-sm text-red-800">Deactivated{when} after every attempt of a delivery failed.</p>
    );
  }
  return (
    <p className="mt-1 text-sm text-red-800">
      Deactivated{when} after all {cause.attempts} attempts of delivery{' '}
      <code title={cause.deliveryId} className="font-mono text-xs text-red-950">
        {shortId(cause.deliveryId)}
      </code>{' '}
      <InlineCopyButton value={cause.deliveryId} what="delivery ID" /> (
      <span className="font-mono text-xs">{cause.event}</span>) failed; last error:{' '}
      <span data-testid="deactivation-error" className="break-words font-medium text-red-950">
        {describeLastError(cause)}
      </span>
      .
    </p>
  );
}

function describeLastError(cause: { lastStatusCode: number | null; lastError: string | null }): string {
  if (cause.lastStatusCode !== null)
    return cause.lastError
      ? `HTTP ${cause.lastStatusCode} (${cause.lastError})`
      : `HTTP ${cause.lastStatusCode}`;
  return cause.lastError ?? 'no response';
}
