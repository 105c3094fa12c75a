'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { type FormEvent, useId } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, Card, EmptyState, ErrorMessage, Loading, PageHeader } from '../ui/card';
import { RelativeTime } from '../ui/relative-time';
import { Cell, EarlyAccessBadge, NotAnOperator, number, PLAN_NAMES } from './admin-shared';
import { CreateAccountForm } from './create-account-form';

/** Every account, open early-access requests first; search and page in the URL. */
export function AccountsConsole() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const searchId = useId();
  const search = params.get('q') ?? '';
  const page = Math.max(0, Number.parseInt(params.get('page') ?? '0', 10) || 0);
  const list = useQuery({
    ...trpc.admin.accounts.queryOptions({ search: search || undefined, page }),
    placeholderData: keepPreviousData,
    // Not an operator is a final answer: say so at once rather than after a retry.
    retry: (failures, err) => err.data?.code !== 'FORBIDDEN' && failures < 1,
  });

  const go = (q: string, p: number) => {
    const next = new URLSearchParams();
    if (q) next.set('q', q);
    if (p > 0) next.set('page', String(p));
    router.push(next.size ? `${pathname}?${next}` : pathname);
  };
  function onSearch(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    go(String(new FormData(event.currentTarget).get('q') ?? '').trim(), 0);
  }

  if (list.error?.data?.code === 'FORBIDDEN') return <NotAnOperator message={list.error.message} />;
  // Nothing of the console (its search, its "Create an account" form) before the server has said
  // this account may use it.
  if (list.isPending) return <Loading label="Loading accounts…" />;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Operator console"
        description="Every account with its plan, early access, today’s usage, keys and endpoints. Open early-access requests come first. Every change is recorded in the account’s audit log."
      />
      <Card>
        <form onSubmit={onSearch} className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="grow space-y-1">
            <label htmlFor={searchId} className="block text-sm font-medium text-zinc-800">
              Search accounts
            </label>
            <input
              id={searchId}
              name="q"
              type="search"
              defaultValue={search}
              key={search}
              maxLength={254}
              placeholder="Email or name"
              className="block w-full rounded-md border-0 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm ring-1 ring-inset ring-zinc-300 placeholder:text-zinc-500 focus:ring-2 focus:ring-inset focus:ring-indigo-600"
            />
          </div>
          <Button type="submit">Search</Button>
        </form>
      </Card>

      {list.isError ? (
        <div className="space-y-3">
          <ErrorMessage error={list.error} />
          <Button variant="secondary" onClick={() => list.refetch()}>
            Try again
          </Button>
        </div>
      ) : list.data.accounts.length === 0 ? (
        <EmptyState title={search ? `No account matches “${search}”` : 'No accounts yet'} />
      ) : (
        <div className="space-y-3">
          <p className="text-sm text-zinc-600" aria-live="polite">
            {number.format(list.data.total)} account{list.data.total === 1 ? '' : 's'}
            {search ? ` matching “${search}”` : ''}
          </p>
          <table className="block w-full text-sm md:table md:rounded-lg md:bg-white md:shadow-sm md:ring-1 md:ring-zinc-200">
            <caption className="sr-only">Accounts</caption>
            <thead className="hidden border-b border-zinc-200 text-left text-xs font-medium uppercase tracking-wide text-zinc-500 md:table-header-group">
              <tr>
                {['Account', 'Plan', 'Early access', 'Usage today', 'Keys', 'Endpoints', 'Created'].map(
                  (h) => (
                    <th key={h} scope="col" className="px-4 py-3">
                      {h}
                    </th>
                  ),
                )}
              </tr>
            </thead>
            <tbody className="block space-y-3 md:table-row-group md:space-y-0 md:divide-y md:divide-zinc-100">
              {list.data.accounts.map((a) => (
                <tr
                  key={a.id}
                  data-testid="console-account-row"
                  data-account-id={a.id}
                  className="block rounded-lg bg-white p-4 shadow-sm ring-1 ring-zinc-200 md:table-row md:rounded-none md:p-0 md:shadow-none md:ring-0"
                >
                  <Cell label="Account">
                    <Link
                      href={`/admin/accounts/${a.id}`}
                      className="font-medium break-all text-indigo-700 hover:underline"
                    >
                      {a.email}
                    </Link>
                    {a.emailVerified ? null : (
                      <span className="ml-1">
                        <Badge color="amber">Unverified</Badge>
                      </span>
                    )}
                  </Cell>
                  <Cell label="Plan">{PLAN_NAMES[a.plan] ?? a.plan}</Cell>
                  <Cell label="Early access">
                    <EarlyAccessBadge earlyAccess={a.earlyAccess} requestedAt={a.earlyAccessRequestedAt} />
                  </Cell>
                  <Cell label="Usage today">
                    {number.format(a.usageToday)} / {number.format(a.limitToday)}
                  </Cell>
                  <Cell label="Keys">{a.activeKeys}</Cell>
                  <Cell label="Endpoints">{a.endpoints}</Cell>
                  <Cell label="Created">
                    <RelativeTime iso={a.createdAt} />
                  </Cell>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.total > list.data.pageSize ? (
            <nav aria-label="Pages of accounts" className="flex items-center justify-between gap-2">
              <Button variant="secondary" disabled={page === 0} onClick={() => go(search, page - 1)}>
                Previous
              </Button>
              <span className="text-sm text-zinc-600">
                Page {page + 1} of {Math.ceil(list.data.total / list.data.pageSize)}
              </span>
              <Button
                variant="secondary"
                disabled={(page + 1) * list.data.pageSize >= list.data.total}
                onClick={() => go(search, page + 1)}
              >
                Next
              </Button>
            </nav>
          ) : null}
        </div>
      )}

      <CreateAccountForm />
    </div>
  );
}
