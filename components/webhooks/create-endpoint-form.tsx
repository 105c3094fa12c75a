'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { friendlyMessage, isRetryable } from '../ui/friendly-error';
import { useToast } from '../ui/toast';
import { ShownOnce } from '../ui/copy-button';
import { SelectField } from '../ui/field';
import type { FormName } from '@/server/domain';
import { formProfileList } from '@/server/rest/form-profiles';
import { DEFAULT_FORM, parseFormName } from '@/server/domain';
import { EndpointEventCheckboxes } from './endpoint-event-checkboxes';
import { EndpointDescriptionField, EndpointUrlField } from './endpoint-fields';
import { endpointFormErrors, MAX_ENDPOINT_DESCRIPTION } from './endpoint-form';
import type { WebhookEvent } from '@/server/domain';

export function CreateEndpointForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['meeting.completed']);
  const [secretForm, setSecretForm] = useState<FormName>(DEFAULT_FORM);
  const [eventsError, setEventsError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ id: string; url: string; secret: string } | null>(null);

  const toast = useToast();
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async ({ endpoint, secret }) => {
        setCreated({ id: endpoint.id, url: endpoint.url, secret });
        toast(`Endpoint added: ${endpoint.url}`);
        setUrl('');
        setDescription('');
        setEvents(['meeting.completed']);
        setSecretForm(DEFAULT_FORM);
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      },
    }),
  );

  const serverErrors = endpointFormErrors(create.error ? friendlyMessage(create.error) : null);

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (events.length === 0) {
      setEventsError('Choose at least one event');
      return;
    }
    setCreated(null);
    const label = description.trim();
    create.mutate({ url: url.trim(), events, form: secretForm, ...(label && { description: label }) });
  }

  return (
    <Card>
      <h2 className="text-base font-semibold">Add an endpoint</h2>
      <p className="mt-1 text-sm text-zinc-600">
        The URL must use https:// and be reachable from the public internet; addresses on private networks or
        loopback are refused.
      </p>

      {created ? (
        <div className="mt-4 space-y-3">
          <ShownOnce label="Signing secret" value={created.secret} />
          <p className="text-sm text-zinc-600">
            Endpoint <span className="break-all font-mono text-zinc-900">{created.url}</span> was created.{' '}
            <Link href={`/webhooks/${created.id}`} className="font-medium text-indigo-700 hover:underline">
              Open it to send a test event
            </Link>{' '}
            and see how receivers verify the signature.
          </p>
          <Button variant="secondary" onClick={() => setCreated(null)}>
            I have saved the secret
          </Button>
        </div>
      ) : null}

      <form data-testid="create-endpoint-form" onSubmit={onSubmit} noValidate className="mt-4 space-y-5">
        <EndpointUrlField
          placeholder="https://example.com/webhooks/meeting-notes"
          value={url}
          onChange={(value) => {
            setUrl(value);
            if (create.error) create.reset();
          }}
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

        <ErrorMessage
          error={serverErrors.other ? { message: serverErrors.other } : null}
          onRetry={
            isRetryable(create.error) ? () => create.variables && create.mutate(create.variables) : undefined
          }
          retrying={create.isPending}
        />

        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create endpoint'}
        </Button>
      </form>
    </Card>
  );
}
