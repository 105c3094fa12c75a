import type { ReactNode } from 'react';
import { friendlyMessage, isRetryable } from './friendly-error';

export function Card({ children, className = '' }: { children: ReactNode; className?: string }) {
  return (
    <section className={`rounded-lg bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:p-6 ${className}`}>
      {children}
    </section>
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
      <div className="min-w-0">
        <h1 className="break-words text-2xl font-semibold tracking-tight">{title}</h1>
        {description ? <p className="mt-1 max-w-2xl text-sm text-zinc-600">{description}</p> : null}
      </div>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-zinc-300 p-8 text-center">
      <p className="text-sm font-medium text-zinc-800">{title}</p>
      {children ? <div className="mt-1 text-sm text-zinc-500">{children}</div> : null}
    </div>
  );
}

/**
 * A failed call in words for people (components/ui/friendly-error.ts), with *Try again* when
 * given what to retry.
 */
export function ErrorMessage({
  error,
  onRetry,
  retrying = false,
}: {
  error: { message: string } | null | undefined;
  onRetry?: () => unknown;
  retrying?: boolean;
}) {
  if (!error) return null;
  return (
    <div
      role="alert"
      className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-inset ring-red-200"
    >
      <p className="min-w-0 flex-1">{friendlyMessage(error)}</p>
      {onRetry ? (
        <button
          type="button"
          onClick={() => onRetry()}
          disabled={retrying}
          className="rounded-md bg-white px-2.5 py-1 text-xs font-medium text-red-800 ring-1 ring-inset ring-red-300 hover:bg-red-100 disabled:opacity-60"
        >
          {retrying ? 'Trying again…' : 'Try again'}
        </button>
      ) : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" aria-live="polite" className="animate-pulse py-6 text-sm text-zinc-500">
      {label}
    </p>
  );
}

const BADGE = {
  green: 'bg-green-50 text-green-700 ring-green-600/20',
  red: 'bg-red-50 text-red-700 ring-red-600/20',
  zinc: 'bg-zinc-100 text-zinc-700 ring-zinc-500/20',
  indigo: 'bg-indigo-50 text-indigo-700 ring-indigo-600/20',
  amber: 'bg-amber-50 text-amber-800 ring-amber-600/20',
} as const;

export function Badge({ color = 'zinc', children }: { color?: keyof typeof BADGE; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${BADGE[color]}`}
    >
      {children}
    </span>
  );
}

/** The part of a mutation (TanStack Query's useMutation) that MutationError reads. */
interface RetryableMutation<V> {
  error: unknown;
  variables: V | undefined;
  isPending: boolean;
  mutate(variables: V): unknown;
}

/**
 * A mutation's error, with "Try again" sending the same call again when retrying can help
 * (not for a refusal of the input, a missing resource or a lost session). `shown` is the message
 * to show when the form shows some errors beside their fields instead; by default the mutation's own.
 */
export function MutationError<V>({
  mutation,
  shown,
}: {
  mutation: RetryableMutation<V>;
  shown?: { message: string } | null;
}) {
  const { variables } = mutation;
  return (
    <ErrorMessage
      error={shown === undefined ? (mutation.error as { message: string } | null) : shown}
      onRetry={
        isRetryable(mutation.error) && variables !== undefined ? () => mutation.mutate(variables) : undefined
      }
      retrying={mutation.isPending}
    />
  );
}
