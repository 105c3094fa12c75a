'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent, type ReactNode } from 'react';
import { DEFAULT_FORM, FORM_NAMES, PLANS, type FormName, type Plan } from '@/server/domain';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, Card, EmptyState, ErrorMessage, Loading, PageHeader } from '../ui/card';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ShownOnce } from '../ui/copy-button';
import { SelectField, TextField } from '../ui/field';
import { formatDateTime, RelativeTime } from '../ui/relative-time';
import {
  type ConsoleAccount,
  describeAudit,
  EarlyAccessBadge,
  NotAnOperator,
  number,
  PLAN_NAMES,
} from './admin-shared';

/** One account in the operator console. */
export function AccountConsolePage({ id }: { id: string }) {
  const trpc = useTRPC();
  const account = useQuery(
    trpc.admin.account.queryOptions(
      { accountId: id },
      // Not an operator is a final answer: say so at once rather than after a retry.
      { retry: (failures, err) => err.data?.code !== 'FORBIDDEN' && failures < 1 },
    ),
  );

  if (account.error?.data?.code === 'FORBIDDEN') return <NotAnOperator message={account.error.message} />;
  return (
    <div className="space-y-6">
      <p className="text-sm">
        <Link href="/admin" className="font-medium text-indigo-700 hover:underline">
          ← All accounts
        </Link>
      </p>
      {account.isPending ? (
        <Loading label="Loading the account…" />
      ) : account.isError ? (
        <div className="space-y-3">
          <PageHeader title="Account" />
          <ErrorMessage error={account.error} />
          <Button variant="secondary" onClick={() => account.refetch()}>
            Try again
          </Button>
        </div>
      ) : (
        <>
          <PageHeader
            title={account.data.email}
            description={
              <>
                {account.data.name ? `${account.data.name} · ` : ''}Created{' '}
                <RelativeTime iso={account.data.createdAt} /> ·{' '}
                {account.data.emailVerified ? 'email verified' : 'email not verified'}
              </>
            }
          />
          <div className="grid gap-6 lg:grid-cols-2">
            <EarlyAccessCard account={account.data} />
            <PlanCard account={account.data} />
          </div>
          <KeysCard account={account.data} />
          <AuditCard account={account.data} />
        </>
      )}
    </div>
  );
}

function useUpdate(accountId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.admin.updateAccount.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.admin.account.queryKey({ accountId }) });
        await queryClient.invalidateQueries({ queryKey: trpc.admin.accounts.queryKey() });
      },
    }),
  );
}

function EarlyAccessCard({ account }: { account: ConsoleAccount }) {
  const update = useUpdate(account.id);
  return (
    <Card>
      <h2 className="text-base font-semibold">Early access</h2>
      <div
        className="mt-3"
        data-testid="console-early-access"
        data-early-access={account.earlyAccess ? 'yes' : 'no'}
      >
        <EarlyAccessBadge earlyAccess={account.earlyAccess} requestedAt={account.earlyAccessRequestedAt} />
      </div>
      <p className="mt-3 text-sm text-zinc-600">
        {account.earlyAccess
          ? 'The account’s keys can call /v1.'
          : 'Without it, every /v1 call with the account’s keys answers 403. Granting it emails the owner (a verified address).'}
      </p>
      <div className="mt-4">
        <ErrorMessage error={update.error} />
        {account.earlyAccess ? (
          <ConfirmDialog
            title="Revoke early access?"
            description={`Every /v1 call with the keys of ${account.email} answers 403 from the next request on.`}
            confirmLabel="Revoke early access"
            pending={update.isPending}
            onConfirm={() => update.mutate({ accountId: account.id, earlyAccess: false })}
            trigger={
              <Button variant="secondary" disabled={update.isPending}>
                Revoke early access
              </Button>
            }
          />
        ) : (
          <Button
            data-testid="grant-early-access"
            disabled={update.isPending}
            onClick={() => update.mutate({ accountId: account.id, earlyAccess: true })}
          >
            {update.isPending ? 'Granting…' : 'Grant early access'}
          </Button>
        )}
      </div>
    </Card>
  );
}

function PlanCard({ account }: { account: ConsoleAccount }) {
  const update = useUpdate(account.id);
  const [saved, setSaved] = useState(false);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const limit = String(form.get('dailyLimit') ?? '').trim();
    setSaved(false);
    update.mutate(
      {
        accountId: account.id,
        plan: String(form.get('plan')) as Plan,
        dailyLimit: limit === '' ? null : Number(limit),
      },
      { onSuccess: () => setSaved(true) },
    );
  }

  return (
    <Card>
      <h2 className="text-base font-semibold">Plan and usage</h2>
      <p className="mt-2 text-sm text-zinc-700" data-testid="console-usage">
        {number.format(account.usageToday)} of {number.format(account.limitToday)} requests today (UTC)
      </p>
      <form
        onSubmit={onSubmit}
        className="mt-4 grid gap-4 sm:grid-cols-2"
        key={`${account.plan}-${account.dailyLimit}`}
      >
        <SelectField label="Plan" name="plan" defaultValue={account.plan}>
          {PLANS.map((p) => (
            <option key={p} value={p}>
              {PLAN_NAMES[p]}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Daily limit"
          name="dailyLimit"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          defaultValue={account.dailyLimit ?? ''}
          hint="Enterprise only; empty for the default (100,000)."
        />
        <div className="space-y-2 sm:col-span-2">
          <ErrorMessage error={update.error} />
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" variant="secondary" disabled={update.isPending}>
              {update.isPending ? 'Saving…' : 'Save plan and limit'}
            </Button>
            {saved && !update.isPending ? (
              <p role="status" className="text-sm text-green-700">
                Saved.
              </p>
            ) : null}
          </div>
        </div>
      </form>
    </Card>
  );
}

function KeysCard({ account }: { account: ConsoleAccount }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<string | null>(null);
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: trpc.admin.account.queryKey({ accountId: account.id }) });
  const create = useMutation(
    trpc.admin.createKey.mutationOptions({
      onSuccess: async ({ apiKey }) => {
        setShown(apiKey);
        await refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.admin.revokeKey.mutationOptions({ onSuccess: refresh }));

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({
      accountId: account.id,
      form: String(form.get('form')) as FormName,
      name: String(form.get('name') ?? '').trim() || undefined,
    });
  }

  return (
    <Card>
      <h2 className="text-base font-semibold">API keys</h2>
      <div className="mt-3 space-y-3">
        <ErrorMessage error={revoke.error} />
        {account.keys.length === 0 ? (
          <EmptyState title="No active keys" />
        ) : (
          <ul className="divide-y divide-zinc-100">
            {account.keys.map((k) => (
              <li
                key={k.id}
                className="flex flex-wrap items-center justify-between gap-2 py-2"
                data-testid="console-key"
              >
                <span className="min-w-0 text-sm">
                  <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs">
                    {k.prefix}…{k.lastFour}
                  </code>{' '}
                  <Badge>Form {k.form}</Badge> <span className="break-words">{k.name}</span>{' '}
                  <span className="text-xs text-zinc-500">
                    {k.lastUsedAt ? (
                      <>
                        used <RelativeTime iso={k.lastUsedAt} />
                      </>
                    ) : (
                      'never used'
                    )}
                  </span>
                </span>
                <ConfirmDialog
                  title="Revoke key?"
                  description={`The next API call with ${k.prefix}…${k.lastFour} gets 401.`}
                  confirmLabel="Revoke key"
                  pending={revoke.isPending}
                  onConfirm={() => revoke.mutate({ accountId: account.id, keyId: k.id })}
                  trigger={
                    <Button variant="secondary" aria-label={`Revoke key ${k.prefix}…${k.lastFour}`}>
                      Revoke
                    </Button>
                  }
                />
              </li>
            ))}
          </ul>
        )}
        <form
          onSubmit={onCreate}
          className="grid gap-3 border-t border-zinc-100 pt-4 sm:grid-cols-[1fr_10rem_auto] sm:items-end"
        >
          <TextField label="New key’s name (optional)" name="name" maxLength={100} autoComplete="off" />
          <SelectField label="Form" name="form" defaultValue={DEFAULT_FORM}>
            {FORM_NAMES.map((f) => (
              <option key={f} value={f}>
                Form {f}
              </option>
            ))}
          </SelectField>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </Button>
        </form>
        <ErrorMessage error={create.error} />
        {shown ? <ShownOnce label={`New API key of ${account.email}`} value={shown} /> : null}
      </div>
    </Card>
  );
}

function AuditCard({ account }: { account: ConsoleAccount }) {
  return (
    <Card>
      <h2 className="text-base font-semibold">Audit log</h2>
      <p className="mt-1 text-sm text-zinc-600">What operators did to this account, newest first.</p>
      <div className="mt-3">
        {account.audit.length === 0 ? (
          <EmptyState title="No changes yet" />
        ) : (
          <ol className="divide-y divide-zinc-100" data-testid="audit-log">
            {account.audit.map((e) => (
              <AuditRow key={e.id} when={e.createdAt} who={e.actor} action={e.action}>
                {describeAudit(e.action, e.detail)}
              </AuditRow>
            ))}
          </ol>
        )}
      </div>
    </Card>
  );
}

function AuditRow({
  when,
  who,
  action,
  children,
}: {
  when: string;
  who: string;
  action: string;
  children: ReactNode;
}) {
  return (
    <li className="py-2 text-sm" data-testid="audit-entry" data-action={action}>
      <p className="font-medium text-zinc-900">{children}</p>
      <p className="text-xs text-zinc-600">
        by <span className="break-all">{who}</span> · <time dateTime={when}>{formatDateTime(when)}</time>
      </p>
    </li>
  );
}
