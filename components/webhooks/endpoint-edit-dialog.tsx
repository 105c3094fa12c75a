'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { MutationError } from '../ui/card';
import { friendlyMessage } from '../ui/friendly-error';
import { Modal, ModalClose } from '../ui/dialog';
import { EndpointEventCheckboxes } from './endpoint-event-checkboxes';
import { EndpointDescriptionField, EndpointUrlField, endpointUrlHint } from './endpoint-fields';
import { endpointFormErrors, MAX_ENDPOINT_DESCRIPTION } from './endpoint-form';
import type { WebhookEvent } from '@/server/domain';
import type { Endpoint } from './webhook-shared';

/**
 * URL, events and description, edited in place (the id, secret and delivery history stay). The
 * server checks a new URL as at registration and refuses one the account
 * has registered already; its message is shown under the field it is about.
 */
export function EndpointEditDialog({
  endpoint,
  allowPrivateUrls,
  onUpdated,
}: {
  endpoint: Endpoint;
  /** The server allows http:// and private addresses (WEBHOOK_ALLOW_PRIVATE_URLS); the hint says so. */
  allowPrivateUrls: boolean;
  onUpdated(): void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description);
  const [events, setEvents] = useState<WebhookEvent[]>([...endpoint.events]);
  const [eventsError, setEventsError] = useState<string | null>(null);

  const update = useMutation(
    trpc.webhooks.update.mutationOptions({
      onSuccess: async (updated) => {
        queryClient.setQueryData(trpc.webhooks.get.queryKey({ id: endpoint.id }), (current) =>
          current ? { ...current, ...updated } : current,
        );
        setOpen(false);
        onUpdated();
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: endpoint.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
        ]);
      },
    }),
  );
  const errors = endpointFormErrors(update.error ? friendlyMessage(update.error) : null);

  /** Opening starts from the endpoint as it is now, not from an earlier, abandoned edit. */
  function onOpenChange(next: boolean) {
    if (next) {
      setUrl(endpoint.url);
      setDescription(endpoint.description);
      setEvents([...endpoint.events]);
      setEventsError(null);
      update.reset();
    }
    setOpen(next);
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (events.length === 0) {
      setEventsError('Choose at least one event');
      return;
    }
    update.mutate({ id: endpoint.id, url: url.trim(), events, description: description.trim() });
  }

  const clearError = () => {
    if (update.error) update.reset();
  };

  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      trigger={
        <Button variant="secondary" data-testid="edit-endpoint">
          Edit
        </Button>
      }
      title="Edit endpoint"
      description={
        <p>
          The endpoint keeps its ID, signing secret and delivery history. Deliveries still being retried go to
          the new URL from their next attempt.
        </p>
      }
      wide
      data-testid="edit-endpoint-dialog"
    >
      <form onSubmit={onSubmit} noValidate className="mt-4 space-y-5">
        <EndpointUrlField
          data-testid="edit-endpoint-url"
          value={url}
          onChange={(value) => {
            setUrl(value);
            clearError();
          }}
          hint={endpointUrlHint(allowPrivateUrls)}
          error={errors.url}
        />
        <EndpointDescriptionField
          data-testid="edit-endpoint-description"
          value={description}
          onChange={(value) => {
            setDescription(value);
            clearError();
          }}
          hint={`Up to ${MAX_ENDPOINT_DESCRIPTION} characters; leave it empty for none.`}
          error={errors.description}
        />
        <EndpointEventCheckboxes
          value={events}
          onChange={(next) => {
            setEventsError(null);
            setEvents(next);
            clearError();
          }}
          error={eventsError ?? errors.events}
        />
        <MutationError mutation={update} shown={errors.other ? { message: errors.other } : null} />
        <div className="flex flex-wrap justify-end gap-2">
          <ModalClose>
            <Button variant="secondary">Cancel</Button>
          </ModalClose>
          <Button type="submit" data-testid="save-endpoint" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save changes'}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
