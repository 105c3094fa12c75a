'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { readAgain } from '../read-again';
import { Button } from '../ui/button';
import { MutationError } from '../ui/card';
import { friendlyMessage } from '../ui/friendly-error';
import { useToast } from '../ui/toast';
import { ShownOnce } from '../ui/copy-button';
import { Modal, ModalClose } from '../ui/dialog';
import { SelectField } from '../ui/field';
import type { FormName } from '@/server/domain';
import { formProfileList } from '@/server/rest/form-profiles';
import { DEFAULT_FORM, parseFormName } from '@/server/domain';
import { EndpointEventCheckboxes } from './endpoint-event-checkboxes';
import { EndpointDescriptionField, EndpointUrlField, endpointUrlHint } from './endpoint-fields';
import { endpointFormErrors, MAX_ENDPOINT_DESCRIPTION } from './endpoint-form';
import type { WebhookEvent } from '@/server/domain';

const DEFAULT_EVENTS: WebhookEvent[] = ['meeting.completed'];

/**
 * "Add endpoint": the list's action, as in Stripe's and Svix's dashboards. It opens a dialog with
 * the new endpoint's form; once created, the dialog shows the signing secret (once) and a link to
 * the endpoint's page in place of the form.
 */
export function AddEndpointDialog({ allowPrivateUrls }: { allowPrivateUrls: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(DEFAULT_EVENTS);
  const [secretForm, setSecretForm] = useState<FormName>(DEFAULT_FORM);
  const [eventsError, setEventsError] = useState<string | null>(null);
  // The secret lives only here, while the dialog is open: closing it forgets the secret.
  const [created, setCreated] = useState<{ id: string; url: string; secret: string } | null>(null);

  const toast = useToast();
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: ({ endpoint, secret }) => {
        setCreated({ id: endpoint.id, url: endpoint.url, secret });
        toast(`Endpoint added: ${endpoint.url}`);
        // Not awaited: closing is refused while the mutation is pending, which lasts until
        // onSuccess settles.
        void readAgain(queryClient, { queryKey: trpc.webhooks.list.queryKey() });
      },
    }),
  );

  const serverErrors = endpointFormErrors(create.error ? friendlyMessage(create.error) : null);

  /** Each opening starts from an empty form; closing while the creation is under way would lose its secret. */
  function onOpenChange(next: boolean) {
    if (!next && create.isPending) return;
    if (next) {
      setUrl('');
      setDescription('');
      setEvents(DEFAULT_EVENTS);
      setSecretForm(DEFAULT_FORM);
      setEventsError(null);
      create.reset();
    }
    setCreated(null);
    setOpen(next);
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (events.length === 0) {
      setEventsError('Choose at least one event');
      return;
    }
    const label = description.trim();
    create.mutate({ url: url.trim(), events, form: secretForm, ...(label && { description: label }) });
  }

  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      trigger={<Button data-testid="add-endpoint">Add endpoint</Button>}
      title={created ? 'Endpoint added' : 'Add an endpoint'}
      description={
        created ? (
          <p>
            Put the signing secret in your receiver&apos;s configuration: it verifies that deliveries come
            from Meeting Notes.
          </p>
        ) : (
          <p>
            For every event the endpoint subscribes to, Meeting Notes sends an HTTPS POST with the meeting as
            JSON, signed with the endpoint&apos;s secret.
          </p>
        )
      }
      wide
      data-testid="add-endpoint-dialog"
      // A click beside the dialog must not throw away a secret that is shown only once.
      onInteractOutside={(e) => {
        if (created) e.preventDefault();
      }}
    >
      {created ? (
        <div className="mt-4 space-y-4">
          <ShownOnce label="Signing secret" value={created.secret} />
          <p className="text-sm text-zinc-600">
            Endpoint <span className="break-all font-mono text-zinc-900">{created.url}</span> was created.{' '}
            <Link href={`/webhooks/${created.id}`} className="font-medium text-indigo-700 hover:underline">
              Open it to send a test event
            </Link>{' '}
            and see how receivers verify the signature.
          </p>
          <div className="flex justify-end">
            <ModalClose>
              <Button>I have saved the secret</Button>
            </ModalClose>
          </div>
        </div>
      ) : (
        <form data-testid="create-endpoint-form" onSubmit={onSubmit} noValidate className="mt-4 space-y-5">
          <EndpointUrlField
            placeholder="https://example.com/webhooks/meeting-notes"
            value={url}
            onChange={(value) => {
              setUrl(value);
              if (create.error) create.reset();
            }}
            hint={endpointUrlHint(allowPrivateUrls)}
            error={serverErrors.url}
          />

          <EndpointDescriptionField
            placeholder="e.g. CRM sync in production"
            value={description}
            onChange={(value) => {
              setDescription(value);
              if (create.error) create.reset();
            }}
            hint={`A label for you and your team, up to ${MAX_ENDPOINT_DESCRIPTION} characters.`}
            error={serverErrors.description}
          />

          <EndpointEventCheckboxes
            value={events}
            onChange={(next) => {
              setEventsError(null);
              setEvents(next);
            }}
            error={eventsError ?? serverErrors.events}
          />

          <div className="max-w-xs">
            <SelectField
              label="Secret format"
              name="form"
              value={secretForm}
              onChange={(e) => setSecretForm(parseFormName(e.target.value) ?? DEFAULT_FORM)}
              aria-describedby={`${formId}-form-hint`}
            >
              {formProfileList().map((profile) => (
                <option key={profile.name} value={profile.name}>
                  {profile.name}
                </option>
              ))}
            </SelectField>
            <p id={`${formId}-form-hint`} className="mt-1 text-xs text-zinc-500">
              {formProfileList()
                .map((profile) => `${profile.name}: ${profile.about.secretFormat}`)
                .join('; ')}
            </p>
          </div>

          <MutationError
            mutation={create}
            shown={serverErrors.other ? { message: serverErrors.other } : null}
          />

          <div className="flex flex-wrap justify-end gap-2">
            <ModalClose>
              <Button variant="secondary">Cancel</Button>
            </ModalClose>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create endpoint'}
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}
