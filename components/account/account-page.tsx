'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import type { ReactNode } from 'react';
import { useTRPC } from '../trpc';
import { useHydrated } from '../ui/use-hydrated';
import { Badge, Card, ErrorMessage, Loading, PageHeader } from '../ui/card';
import Link from 'next/link';
import { EarlyAccessRequest } from './early-access-request';
import { EmailList } from './email-list';
import { VerificationBanner } from './verification-banner';
import { SignOutEverywhere } from './sign-out-everywhere';
import { UsageMeter } from './usage-meter';
import { WelcomeBanner } from './welcome-banner';

const PLAN_NAMES: Record<string, string> = { free: 'Free', pro: 'Pro', enterprise: 'Enterprise' };

export function AccountPage() {
  const trpc = useTRPC();
  const welcome = useSearchParams().get('welcome') === '1';
  const account = useQuery(trpc.account.get.queryOptions());
  // The navigation asks for the account too: its answer waits for this page to hydrate (use-hydrated.ts).
  const hydrated = useHydrated();

  return (
    <div className="space-y-6">
      <PageHeader
        title="Account"
        description="Your plan, API access and usage, the emails we have sent you, and your sessions."
      />
      {welcome ? <WelcomeBanner earlyAccess={hydrated ? account.data?.earlyAccess : undefined} /> : null}

      {!hydrated || account.isPending ? (
        <Loading label="Loading your account…" />
      ) : account.isError ? (
        <ErrorMessage error={account.error} onRetry={() => account.refetch()} retrying={account.isFetching} />
      ) : (
        <>
          {!account.data.emailVerified ? (
            <VerificationBanner email={account.data.email} reason="unverified" />
          ) : account.data.operatorAddress && !account.data.mailboxProven ? (
            <VerificationBanner email={account.data.email} reason="operator" />
          ) : null}
          <div className="grid gap-6 lg:grid-cols-2">
            <Card>
              <h2 className="text-base font-semibold">Profile</h2>
              <dl className="mt-4 space-y-3 text-sm">
                <Row term="Email">
                  <span className="break-all">{account.data.email}</span>{' '}
                  <span data-testid="email-status" data-verified={account.data.emailVerified ? 'yes' : 'no'}>
                    {account.data.emailVerified ? (
                      <Badge color="green">Verified</Badge>
                    ) : (
                      <Badge color="amber">Not verified</Badge>
                    )}
                  </span>
                </Row>
                <Row term="Name">{account.data.name ?? <span className="text-zinc-500">not set</span>}</Row>
                <Row term="Plan">{PLAN_NAMES[account.data.plan] ?? account.data.plan}</Row>
                <Row term="API access">
                  <span
                    data-testid="early-access-status"
                    data-early-access={account.data.earlyAccess ? 'yes' : 'no'}
                  >
                    {account.data.earlyAccess ? (
                      <Badge color="green">Early access</Badge>
                    ) : (
                      <Badge color="amber">No early access</Badge>
                    )}
                  </span>
                </Row>
              </dl>
              {account.data.earlyAccess ? null : (
                <EarlyAccessRequest
                  requestedAt={account.data.earlyAccessRequestedAt}
                  emailVerified={account.data.emailVerified}
                />
              )}
            </Card>

            <Card>
              <h2 className="text-base font-semibold">API usage today</h2>
              <div className="mt-4">
                <UsageMeter usage={account.data.usage} />
              </div>
            </Card>
          </div>

          <Card>
            <h2 className="text-base font-semibold">Email notifications</h2>
            <p className="mt-1 mb-4 text-sm text-zinc-600">
              The 20 most recent emails we sent you. A message with a verification or password reset link is
              listed without its text: only your mailbox shows the link.
            </p>
            <EmailList emails={account.data.emails} />
          </Card>

          {account.data.operator ? (
            <Card>
              <h2 className="text-base font-semibold">Operator</h2>
              <p className="mt-1 text-sm text-zinc-600">
                Your address is in ADMIN_EMAILS: you grant early access and manage every account in the
                operator console.
              </p>
              <Link
                href="/admin"
                className="mt-3 inline-flex rounded-md bg-white px-3 py-2 text-sm font-medium text-zinc-900 shadow-sm ring-1 ring-inset ring-zinc-300 hover:bg-zinc-50"
              >
                Open the operator console
              </Link>
            </Card>
          ) : null}

          <Card>
            <h2 className="text-base font-semibold">Sessions</h2>
            <div className="mt-2">
              <SignOutEverywhere />
            </div>
          </Card>
        </>
      )}
    </div>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 sm:grid sm:grid-cols-[8rem_1fr]">
      <dt className="text-zinc-500">{term}</dt>
      <dd className="min-w-0 text-zinc-900">{children}</dd>
    </div>
  );
}
