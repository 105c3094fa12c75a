'use client';

import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { Badge, EmptyState } from '../ui/card';
import { RelativeTime } from '../ui/relative-time';

type Email = inferRouterOutputs<AppRouter>['account']['get']['emails'][number];

const TRANSPORT: Record<string, { color: 'zinc' | 'green' | 'red'; label: string; title: string }> = {
  log: {
    color: 'zinc',
    label: 'log',
    title: "No SMTP server is configured: the message was written to the server's log.",
  },
  smtp: { color: 'green', label: 'smtp', title: 'Sent through the configured SMTP server.' },
  failed: { color: 'red', label: 'failed', title: 'Sending through SMTP failed.' },
};

export function EmailList({ emails }: { emails: Email[] }) {
  if (emails.length === 0) {
    return (
      <EmptyState title="No emails yet">
        We email you when something needs your attention, such as a webhook endpoint turned inactive after
        failed deliveries.
      </EmptyState>
    );
  }
  return (
    <ul className="divide-y divide-zinc-100">
      {emails.map((email) => {
        const transport = TRANSPORT[email.transport] ?? {
          color: 'zinc' as const,
          label: email.transport,
          title: email.transport,
        };
        return (
          <li
            key={email.id}
            data-testid="email-row"
            data-transport={email.transport}
            className="py-3 first:pt-0 last:pb-0"
          >
            <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1">
              <p className="min-w-0 font-medium break-words text-zinc-900">{email.subject}</p>
              <span title={transport.title}>
                <Badge color={transport.color}>{transport.label}</Badge>
              </span>
            </div>
            <p className="mt-0.5 text-xs break-all text-zinc-500">
              To {email.to} · <RelativeTime iso={email.createdAt} />
            </p>
            {email.body === null ? (
              <p className="mt-2 text-sm text-zinc-600" data-testid="email-mailbox-only">
                This message holds a link that proves the address is yours, so it is shown only in your
                mailbox.
              </p>
            ) : (
              <details className="group mt-2">
                <summary className="cursor-pointer text-sm font-medium text-indigo-700 hover:underline">
                  <span className="group-open:hidden">Show message</span>
                  <span className="hidden group-open:inline">Hide message</span>
                </summary>
                <pre className="mt-2 overflow-x-auto rounded-md bg-zinc-50 p-3 font-sans text-sm whitespace-pre-wrap text-zinc-800 ring-1 ring-inset ring-zinc-200">
                  {email.body}
                </pre>
              </details>
            )}
          </li>
        );
      })}
    </ul>
  );
}
