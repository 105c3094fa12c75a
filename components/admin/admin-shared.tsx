'use client';

import type { inferRouterOutputs } from '@trpc/server';
import type { ReactNode } from 'react';
import type { AppRouter } from '@/server/api/root';
import { Badge, ErrorMessage, PageHeader } from '../ui/card';
import { RelativeTime } from '../ui/relative-time';

type Outputs = inferRouterOutputs<AppRouter>['admin'];
export type ConsoleAccountRow = Outputs['accounts']['accounts'][number];
export type ConsoleAccount = Outputs['account'];

export const PLAN_NAMES: Record<string, string> = { free: 'Free', pro: 'Pro', enterprise: 'Enterprise' };
export const number = new Intl.NumberFormat('en');

/** Granted, asked for (and when), or neither. */
export function EarlyAccessBadge({
  earlyAccess,
  requestedAt,
}: {
  earlyAccess: boolean;
  requestedAt: string | null;
}) {
  if (earlyAccess) return <Badge color="green">Early access</Badge>;
  if (requestedAt)
    return (
      <span className="inline-flex flex-wrap items-center gap-1">
        <Badge color="amber">Requested</Badge>
        <span className="text-xs text-zinc-500">
          <RelativeTime iso={requestedAt} />
        </span>
      </span>
    );
  return <Badge>No early access</Badge>;
}

/** A table cell that carries its own label on phones, where the header row is hidden. */
export function Cell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td className="flex items-baseline justify-between gap-4 py-1 md:table-cell md:px-4 md:py-3 md:align-middle">
      <span className="text-xs text-zinc-500 md:hidden">{label}</span>
      <span className="min-w-0 text-right md:text-left">{children}</span>
    </td>
  );
}

/** What an audit entry says, in words. */
export function describeAudit(action: string, detail: Record<string, unknown>): string {
  const value = (v: unknown) => (v === null || v === undefined ? 'the plan’s default' : String(v));
  switch (action) {
    case 'early_access.grant':
      return 'Granted early access';
    case 'early_access.revoke':
      return 'Revoked early access';
    case 'plan.change':
      return `Changed the plan from ${PLAN_NAMES[String(detail.from)] ?? detail.from} to ${PLAN_NAMES[String(detail.to)] ?? detail.to}`;
    case 'daily_limit.change':
      return `Changed the daily limit from ${value(detail.from)} to ${value(detail.to)}`;
    case 'account.create':
      return `Created the account (${PLAN_NAMES[String(detail.plan)] ?? detail.plan}${detail.early_access ? ', early access' : ''}) with a Form ${detail.form} key`;
    case 'key.create':
      return `Created a Form ${detail.form} key${detail.name ? ` “${detail.name}”` : ''}`;
    case 'key.revoke':
      return `Revoked key ${detail.prefix ?? detail.key_id}…`;
    default:
      return action;
  }
}

/** What a signed-in account that is no operator sees instead of the console. */
export function NotAnOperator({ message }: { message: string }) {
  return (
    <div className="space-y-4">
      <PageHeader title="Operator console" />
      <ErrorMessage error={{ message }} />
    </div>
  );
}
