'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { useToast } from '../ui/toast';
import { SelectField, TextField } from '../ui/field';
import type { FormName } from '@/server/domain';
import { formProfileList } from '@/server/rest/form-profiles';
import { DEFAULT_FORM, parseFormName } from '@/server/domain';

/** Creates a key and hands its plaintext up once; the form clears for the next one. */
export function CreateKeyForm({ onCreated }: { onCreated(plaintext: string, name: string): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const hintId = useId();
  const [name, setName] = useState('');
  const [form, setForm] = useState<FormName>(DEFAULT_FORM);
  const toast = useToast();
  const create = useMutation(
    trpc.keys.create.mutationOptions({
      onSuccess: async ({ key, plaintext }) => {
        onCreated(plaintext, key.name);
        toast(`Key “${key.name}” created`);
        setName('');
        setForm(DEFAULT_FORM);
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate({ name: name.trim(), form });
  }

  return (
    <Card>
      <h2 className="text-base font-semibold">Create a key</h2>
      <form
        data-testid="create-key-form"
        onSubmit={onSubmit}
        className="mt-4 grid gap-4 md:grid-cols-[minmax(0,1fr)_22rem_auto] md:items-start"
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
              <option key={profile.name} value={profile.name}>
                {profile.name}: {profile.about.summary}
              </option>
            ))}
          </SelectField>
          <p id={hintId} className="text-xs text-zinc-500">
            The key’s default shape of responses, errors and limits. A request can pick the other one with the
            X-API-Form header.
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
