'use client';

import * as Checkbox from '@radix-ui/react-checkbox';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { ShownOnce } from '../ui/copy-button';
import { SelectField, TextField } from '../ui/field';
import type { FormName } from '@/server/domain';
import { formProfileList } from '@/server/rest/form-profiles';
import { DEFAULT_FORM, parseFormName } from '@/server/domain';
import { EVENT_OPTIONS, type WebhookEventName } from './webhook-shared';

/** Server messages about the URL (SPEC 4.5 validation) belong under the URL field. */
const isUrlMessage = (message: string) => /^url\b|endpoint url/i.test(message);
const isEventsMessage = (message: string) => /\bevent/i.test(message);

export function CreateEndpointForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventName[]>(['meeting.completed']);
  const [secretForm, setSecretForm] = useState<FormName>(DEFAULT_FORM);
  const [eventsError, setEventsError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ id: string; url: string; secret: string } | null>(null);

  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async ({ endpoint, secret }) => {
        setCreated({ id: endpoint.id, url: endpoint.url, secret });
        setUrl('');
        setEvents(['meeting.completed']);
        setSecretForm(DEFAULT_FORM);
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      },
    }),
  );

  const serverMessage = create.error?.message ?? null;
  const urlError = serverMessage && isUrlMessage(serverMessage) ? serverMessage : null;
  const eventsServerError =
    serverMessage && !urlError && isEventsMessage(serverMessage) ? serverMessage : null;
  const otherError = serverMessage && !urlError && !eventsServerError ? { message: serverMessage } : null;
  const shownEventsError = eventsError ?? eventsServerError;

  function toggle(name: WebhookEventName, checked: boolean) {
    setEventsError(null);
    setEvents((current) =>
      checked
        ? EVENT_OPTIONS.map((o) => o.name).filter((n) => n === name || current.includes(n))
        : current.filter((n) => n !== name),
    );
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (events.length === 0) {
      setEventsError('Choose at least one event');
      return;
    }
    setCreated(null);
    create.mutate({ url: url.trim(), events, form: secretForm });
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
        <TextField
          label="Endpoint URL"
          name="url"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://example.com/webhooks/meeting-notes"
          required
          value={url}
          onChange={(e) => {
            setUrl(e.target.value);
            if (create.error) create.reset();
          }}
          error={urlError}
        />

        <fieldset aria-describedby={shownEventsError ? `${formId}-events-error` : undefined}>
          <legend className="text-sm font-medium text-zinc-800">Events</legend>
          <div className="mt-2 space-y-3">
            {EVENT_OPTIONS.map((option) => {
              const id = `${formId}-${option.name}`;
              return (
                <div key={option.name} className="flex items-start gap-3">
                  <Checkbox.Root
                    id={id}
                    name="events"
                    value={option.name}
                    checked={events.includes(option.name)}
                    onCheckedChange={(checked) => toggle(option.name, checked === true)}
                    aria-describedby={`${id}-description`}
                    className="mt-0.5 flex size-4 shrink-0 items-center justify-center rounded border border-zinc-400 bg-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 data-[state=checked]:border-indigo-600 data-[state=checked]:bg-indigo-600"
                  >
                    <Checkbox.Indicator className="text-white">
                      <svg viewBox="0 0 12 12" aria-hidden="true" className="size-3">
                        <path
                          d="M2.5 6.5l2.5 2.5 4.5-5"
                          fill="none"
                          stroke="currentColor"
                          strokeWidth="1.8"
                          strokeLinecap="round"
                          strokeLinejoin="round"
                        />
                      </svg>
                    </Checkbox.Indicator>
                  </Checkbox.Root>
                  <div className="min-w-0">
                    <label htmlFor={id} className="font-mono text-sm text-zinc-900">
                      {option.name}
                    </label>
                    <p id={`${id}-description`} className="text-xs text-zinc-500">
                      {option.description}
                    </p>
                  </div>
                </div>
              );
            })}
          </div>
          {shownEventsError ? (
            <p id={`${formId}-events-error`} role="alert" className="mt-2 text-xs text-red-600">
              {shownEventsError}
            </p>
          ) : null}
        </fieldset>

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

        <ErrorMessage error={otherError} />

        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create endpoint'}
        </Button>
      </form>
    </Card>
  );
}
