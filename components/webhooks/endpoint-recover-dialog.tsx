'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { MutationError } from '../ui/card';
import { Modal, ModalClose } from '../ui/dialog';
import { TextField } from '../ui/field';
import type { Endpoint } from './webhook-shared';

/** What the page knew of the endpoint's last deactivation before it was re-enabled. */
export interface Deactivation {
  /** When the endpoint was deactivated. */
  at: string | null;
  /** The delivery whose last attempt deactivated it. */
  deliveryId: string | null;
  /** When that delivery was created: recovery from then on includes it. */
  deliveryCreatedAt: string | null;
}

const DAY_MS = 24 * 3600 * 1000;

/** A moment as a datetime-local value in the browser's time zone, to the minute (rounded down). */
function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value, read in the browser's time zone (how JavaScript reads a time without an offset). */
function fromLocalInput(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export const queuedText = (n: number) => `Queued ${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

/**
 * Svix's "recover failed messages": every delivery since a moment that failed or
 * was cancelled goes out again as a new delivery. The moment is compared with when deliveries were
 * created, so after an outage it defaults to when the delivery that deactivated the endpoint was
 * created (its four attempts, and the deliveries cancelled with it, come after), not to the
 * deactivation itself, which would find none of them.
 */
export function EndpointRecoverDialog({
  endpoint,
  open,
  onOpenChange,
  deactivation,
  onRecovered,
  inactiveHintId,
}: {
  endpoint: Endpoint;
  open: boolean;
  onOpenChange(open: boolean): void;
  deactivation: Deactivation | null;
  onRecovered(queued: number): void;
  /** The element that says why the button is disabled while the endpoint is inactive. */
  inactiveHintId?: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // null: not chosen yet, the default applies (it may still be loading).
  const [since, setSince] = useState<string | null>(null);
  const [inputError, setInputError] = useState<string | null>(null);
  const [queued, setQueued] = useState<number | null>(null);

  const cause = useQuery(
    trpc.webhooks.delivery.queryOptions(
      { deliveryId: deactivation?.deliveryId ?? '' },
      {
        enabled: !!deactivation?.deliveryId && !deactivation.deliveryCreatedAt,
        staleTime: Number.POSITIVE_INFINITY,
      },
    ),
  );
  const defaultSince = deactivation?.deliveryCreatedAt ?? cause.data?.createdAt ?? deactivation?.at ?? null;

  const recover = useMutation(
    trpc.webhooks.recover.mutationOptions({
      // Not awaited: the mutation stays pending until onSuccess settles, and closing is refused
      // while it is pending, so awaiting the refetch would make "Close" do nothing meanwhile.
      onSuccess: (result) => {
        setQueued(result.queued);
        onRecovered(result.queued);
        void Promise.all([
          queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter()),
          queryClient.invalidateQueries(trpc.webhooks.health.pathFilter()),
        ]);
      },
    }),
  );

  // Reset on closing: the page also opens the dialog itself (from the hint after re-enabling).
  function changeOpen(next: boolean) {
    // Closing while the request is under way would hide how many were queued.
    if (!next && recover.isPending) return;
    if (!next) {
      setSince(null);
      setInputError(null);
      setQueued(null);
      recover.reset();
    }
    onOpenChange(next);
  }

  const value = since ?? toLocalInput(defaultSince ? new Date(defaultSince) : new Date(Date.now() - DAY_MS));

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const date = fromLocalInput(value);
    if (!date) return setInputError('Enter a date and time');
    if (date.getTime() > Date.now()) return setInputError('Choose a time in the past');
    setInputError(null);
    recover.mutate({ id: endpoint.id, since: date.toISOString() });
  }

  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const defaultHint =
    deactivation?.deliveryCreatedAt || cause.data
      ? ' Set to when the delivery that deactivated the endpoint was created.'
      : deactivation?.at
        ? ' Set to when the endpoint was deactivated.'
        : ' Set to 24 hours ago.';

  return (
    <Modal
      open={open}
      onOpenChange={changeOpen}
      trigger={
        <Button
          variant="secondary"
          data-testid="recover-deliveries"
          disabled={!endpoint.active}
          aria-describedby={endpoint.active ? undefined : inactiveHintId}
        >
          Recover failed deliveries
        </Button>
      }
      title="Recover failed deliveries"
      description={
        <>
          <p>
            Every delivery since then that failed or was cancelled is sent again as a new delivery. Events
            that happened while the endpoint was inactive are not sent (they were never queued).
          </p>
          <p>A delivery is recovered only once, so recovering again does not send it twice.</p>
        </>
      }
      data-testid="recover-dialog"
    >
      {queued !== null ? (
        <div className="mt-4 space-y-4">
          <p role="status" data-testid="recover-result" className="text-sm font-medium text-zinc-900">
            {queuedText(queued)}
            {queued === 0
              ? ': no delivery since then failed or was cancelled, or each was recovered already.'
              : queued === 1
                ? '. It appears in the delivery log as it is sent.'
                : '. They appear in the delivery log as they are sent.'}
          </p>
          <div className="flex justify-end">
            <ModalClose>
              <Button>Close</Button>
            </ModalClose>
          </div>
        </div>
      ) : (
        <form onSubmit={onSubmit} noValidate className="mt-4 space-y-4">
          <TextField
            label="Since"
            type="datetime-local"
            name="since"
            required
            data-testid="recover-since"
            value={value}
            max={toLocalInput(new Date())}
            onChange={(e) => {
              setSince(e.target.value);
              setInputError(null);
              if (recover.error) recover.reset();
            }}
            hint={`In your time zone (${timeZone}).${since === null ? defaultHint : ''}`}
            error={inputError}
          />
          <MutationError mutation={recover} />
          <div className="flex flex-wrap justify-end gap-2">
            <ModalClose>
              <Button variant="secondary">Cancel</Button>
            </ModalClose>
            <Button type="submit" data-testid="confirm-recover" disabled={recover.isPending}>
              {recover.isPending ? 'Recovering…' : 'Recover deliveries'}
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}
