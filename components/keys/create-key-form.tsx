'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { readAgain } from '../read-again';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { useToast } from '../ui/toast';
import { SelectField, TextField } from '../ui/field';
import { formatDateTime } from '../ui/relative-time';
import type { FormName } from '@/server/domain';
import { formProfileList } from '@/server/rest/form-profiles';
import { DEFAULT_FORM, parseFormName } from '@/server/domain';

const DAY_MS = 86_400_000;
/** How long a new key works; "never" by default, as before. */
const EXPIRIES = [
  { value: 'never', label: 'Never', days: null },
  { value: '7', label: 'In 7 days', days: 7 },
  { value: '30', label: 'In 30 days', days: 30 },
  { value: '90', label: 'In 90 days', days: 90 },
  { value: '365', label: 'In 1 year', days: 365 },
] as const;
type Expiry = (typeof EXPIRIES)[number]['value'];
const expiryDays = (value: Expiry) => EXPIRIES.find((e) => e.value === value)?.days ?? null;

/** Creates a key and hands its plaintext up once; the form clears for the next one. */
export function CreateKeyForm({ onCreated }: { onCreated(plaintext: string, name: string): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const hintId = useId();
  const expiryHintId = useId();
  const [name, setName] = useState('');
  const [form, setForm] = useState<FormName>(DEFAULT_FORM);
  const [expiry, setExpiry] = useState<Expiry>('never');
  const toast = useToast();
  const create = useMutation(
    trpc.keys.create.mutationOptions({
      onSuccess: async ({ key, plaintext }) => {
        onCreated(plaintext, key.name);
        toast(
          key.expiresAt
            ? `Key “${key.name}” created; it expires ${formatDateTime(key.expiresAt)}`
            : `Key “${key.name}” created`,
        );
        setName('');
        setForm(DEFAULT_FORM);
        setExpiry('never');
        await readAgain(queryClient, { queryKey: trpc.keys.list.queryKey() });
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const days = expiryDays(expiry);
    // The moment of pressing Create: "in 30 days" means 30 days from now, to the minute.
    const expiresAt = days === null ? null : new Date(Date.now() + days * DAY_MS).toISOString();
    create.mutate({ name: name.trim(), form, expiresAt });
  }

  return (
    <Card>
      <h2 className="text-base font-semibold">Create a key</h2>
      <form
        data-testid="create-key-form"
        onSubmit={onSubmit}
        className="mt-4 grid gap-4 md:grid-cols-2 md:items-start lg:grid-cols-[minmax(0,1fr)_20rem_11rem_auto]"
      >
        <TextField
          label="Name"
          name="name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
          autoComplete="off"
          placeholder="e.g. Production server"
          hint="Only you see it; it helps you tell keys apart."
        />
        <div className="space-y-1">
          <SelectField
            label="Form"
            name="form"
            value={form}
            onChange={(e) => setForm(parseFormName(e.target.value) ?? DEFAULT_FORM)}
            aria-describedby={hintId}
          >
            {formProfileList().map((profile) => (
              // The label alone: a summary beside it was wider than the field and cut off. The
              // summaries are in the hint below.
              <option key={profile.name} value={profile.name}>
                {profile.about.label}
              </option>
            ))}
          </SelectField>
          <p id={hintId} className="text-xs text-zinc-500">
            The key’s default shape of responses, errors and limits (
            {formProfileList()
              .map((profile) => `${profile.about.label}: ${profile.about.summary}`)
              .join('; ')}
            ). A request can pick the other one with the X-API-Form header.
          </p>
        </div>
        <div className="space-y-1">
          <SelectField
            label="Expires"
            name="expires"
            data-testid="create-key-expiry"
            value={expiry}
            onChange={(e) => setExpiry(EXPIRIES.find((x) => x.value === e.target.value)?.value ?? 'never')}
            aria-describedby={expiryHintId}
          >
            {EXPIRIES.map((e) => (
              <option key={e.value} value={e.value}>
                {e.label}
              </option>
            ))}
          </SelectField>
          <p id={expiryHintId} className="text-xs text-zinc-500">
            After it, calls with the key get 401.
          </p>
        </div>
        <Button type="submit" className="md:mt-6" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </Button>
      </form>
      {create.error ? (
        <div className="mt-3">
          <ErrorMessage error={create.error} />
        </div>
      ) : null}
    </Card>
  );
}
