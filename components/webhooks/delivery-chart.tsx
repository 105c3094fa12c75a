'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { ErrorMessage } from '../ui/card';
import { formatDateTime } from '../ui/relative-time';
import { describeFailure } from './webhook-shared';

const RECENT = 30;

/** The last 30 attempts as a row of bars, oldest on the left, with the count in words beside it. */
export function DeliveryChart({
  endpointId,
  refetchInterval,
}: {
  endpointId: string;
  refetchInterval: number;
}) {
  const trpc = useTRPC();
  const recent = useQuery(
    trpc.webhooks.deliveries.queryOptions(
      { id: endpointId, status: 'all', limit: RECENT },
      { refetchInterval },
    ),
  );

  if (recent.isPending)
    return <div className="h-6 w-full max-w-md animate-pulse rounded bg-zinc-100" aria-hidden="true" />;
  if (recent.isError) return <ErrorMessage error={recent.error} />;

  const attempts = [...recent.data.items].reverse();
  const succeeded = attempts.filter((a) => a.success).length;
  const summary =
    attempts.length === 0
      ? 'No delivery attempts yet'
      : `${succeeded} of ${attempts.length} recent ${attempts.length === 1 ? 'attempt' : 'attempts'} succeeded`;

  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:gap-4">
      {attempts.length > 0 ? (
        <div aria-hidden="true" className="flex h-6 items-stretch gap-0.5" data-testid="delivery-chart">
          {attempts.map((a) => (
            <div
              key={a.id}
              title={`${a.success ? `${a.statusCode} OK` : `Failed: ${describeFailure(a)}`} · ${a.event} · attempt ${a.attempt} · ${formatDateTime(a.createdAt)}`}
              className={`w-1.5 rounded-sm sm:w-2 ${a.success ? 'bg-green-500' : 'bg-red-500'}`}
            />
          ))}
        </div>
      ) : null}
      <p data-testid="delivery-chart-summary" className="text-sm text-zinc-600">
        {summary}
      </p>
    </div>
  );
}
