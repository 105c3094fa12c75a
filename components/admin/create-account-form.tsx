'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { DEFAULT_FORM, FORM_NAMES, PLANS, type FormName, type Plan } from '@/server/domain';
import { useTRPC } from '../trpc';
import { readAgain } from '../read-again';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { ShownOnce } from '../ui/copy-button';
import { SelectField, TextField } from '../ui/field';
import { PLAN_NAMES } from './admin-shared';

/** account:create in the console: the account and its first key, whose value is shown once. */
export function CreateAccountForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<{ accountId: string; email: string; apiKey: string } | null>(null);
  const create = useMutation(
    trpc.admin.createAccount.mutationOptions({
      onSuccess: async (result) => {
        setCreated(result);
        await readAgain(queryClient, { queryKey: trpc.admin.accounts.queryKey() });
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const limit = String(form.get('dailyLimit') ?? '').trim();
    create.mutate(
      {
        email: String(form.get('email')),
        name: String(form.get('name') ?? '') || undefined,
        password: String(form.get('password') ?? '') || undefined,
        plan: String(form.get('plan')) as Plan,
        dailyLimit: limit === '' ? null : Number(limit),
        earlyAccess: form.get('earlyAccess') === 'on',
        form: String(form.get('form')) as FormName,
      },
      { onSuccess: () => (event.target as HTMLFormElement).reset() },
    );
  }

  return (
    <Card>
      <h2 className="text-base font-semibold">Create an account</h2>
      <p className="mt-1 text-sm text-zinc-600">
        As <code className="font-mono text-xs">npm run admin -- account:create</code> does: the address counts
        as verified, and the account gets its first API key.
      </p>
      <form onSubmit={onSubmit} className="mt-4 grid gap-4 md:grid-cols-2" data-testid="create-account-form">
        <TextField label="Email" name="email" type="email" required autoComplete="off" />
        <TextField label="Name (optional)" name="name" maxLength={100} autoComplete="off" />
        <TextField
          label="Password (optional)"
          name="password"
          type="password"
          autoComplete="new-password"
          hint="Without one, the owner signs in after a password reset."
        />
        <SelectField label="Plan" name="plan" defaultValue="free">
          {PLANS.map((p) => (
            <option key={p} value={p}>
              {PLAN_NAMES[p]}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Daily limit (optional)"
          name="dailyLimit"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          hint="Enterprise accounts only; empty for the plan’s default."
        />
        <SelectField label="First key’s form" name="form" defaultValue={DEFAULT_FORM}>
          {FORM_NAMES.map((f) => (
            <option key={f} value={f}>
              Form {f}
            </option>
          ))}
        </SelectField>
        <label className="flex items-center gap-2 text-sm text-zinc-800 md:col-span-2">
          <input
            type="checkbox"
            name="earlyAccess"
            className="h-4 w-4 rounded border-zinc-300 text-indigo-600"
          />
          Early access
        </label>
        <div className="md:col-span-2">
          <ErrorMessage error={create.error} />
          <Button type="submit" className="mt-2" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create account'}
          </Button>
        </div>
      </form>
      {created ? (
        <div className="mt-4 space-y-2">
          <ShownOnce label={`API key of ${created.email}`} value={created.apiKey} />
          <Link
            href={`/admin/accounts/${created.accountId}`}
            className="text-sm font-medium text-indigo-700 hover:underline"
          >
            Open {created.email}
          </Link>
        </div>
      ) : null}
    </Card>
  );
}
