'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { Badge, ErrorMessage, Loading } from '../ui/card';
import { formatDateTime } from '../ui/relative-time';
import {
  type DeliveryDetail,
  type DeliveryState,
  describeFailure,
  InlineCopyButton,
  MAX_DELIVERY_ATTEMPTS,
} from './webhook-shared';

/** States after which a delivery no longer changes: its details need no refresh. */
const SETTLED: readonly DeliveryState[] = ['succeeded', 'failed', 'cancelled'];

/** An expanded delivery: its payload and every attempt, oldest first, loaded when opened. */
export function DeliveryDetails({
  deliveryId,
  state,
  refetchInterval,
}: {
  deliveryId: string;
  state: DeliveryState;
  refetchInterval: number;
}) {
  const trpc = useTRPC();
  const detail = useQuery(
    trpc.webhooks.delivery.queryOptions(
      { deliveryId },
      { refetchInterval: SETTLED.includes(state) ? false : refetchInterval },
    ),
  );

  if (detail.isPending) return <Loading label="Loading the delivery…" />;
  if (detail.isError)
    return (
      <ErrorMessage error={detail.error} onRetry={() => detail.refetch()} retrying={detail.isFetching} />
    );
  return <DeliveryDetailView delivery={detail.data} />;
}

function DeliveryDetailView({ delivery }: { delivery: DeliveryDetail }) {
  const payload = prettyJson(delivery.payload);
  return (
    <div className="min-w-0 space-y-4">
      <p className="text-xs text-zinc-600">
        Delivery <span className="break-all font-mono text-zinc-900">{delivery.id}</span>
        {delivery.noteId ? (
          <>
            {' '}
            · {delivery.test ? 'sample meeting' : 'note'}{' '}
            <span className="break-all font-mono text-zinc-900">{delivery.noteId}</span>
          </>
        ) : null}
      </p>

      <CodeBlock title="Payload" text={payload} copy={{ what: 'payload', value: delivery.payload }} />

      <div className="min-w-0 space-y-2">
        <h4 className="text-xs font-medium uppercase tracking-wide text-zinc-500">
          Attempts ({delivery.attemptLog.length} of {MAX_DELIVERY_ATTEMPTS})
        </h4>
        {delivery.attemptLog.length === 0 ? (
          <p className="text-sm text-zinc-600">
            No attempt yet.{' '}
            {delivery.state === 'cancelled'
              ? 'The delivery was cancelled before its first attempt.'
              : 'The first one is made within a few seconds.'}
          </p>
        ) : (
          <ol className="min-w-0 space-y-3">
            {delivery.attemptLog.map((a) => (
              <AttemptItem key={a.id} attempt={a} />
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}

function AttemptItem({ attempt }: { attempt: DeliveryDetail['attemptLog'][number] }) {
  const headers = Object.entries(attempt.requestHeaders)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  const status = attempt.success ? `HTTP ${attempt.statusCode ?? ''}`.trim() : describeFailure(attempt);
  return (
    <li
      data-testid="attempt-row"
      data-attempt={attempt.attempt}
      data-success={String(attempt.success)}
      className="min-w-0 space-y-3 rounded-md bg-white p-3 ring-1 ring-zinc-200"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        <span className="font-medium text-zinc-900">Attempt {attempt.attempt}</span>
        <Badge color={attempt.success ? 'green' : 'red'}>
          <span className="break-all">{status}</span>
        </Badge>
        <time dateTime={attempt.createdAt} className="text-zinc-600">
          {formatDateTime(attempt.createdAt)}
        </time>
        <span className="tabular-nums text-zinc-600">{attempt.durationMs.toLocaleString()} ms</span>
      </div>
      <div className="grid min-w-0 gap-3 lg:grid-cols-2">
        <CodeBlock
          title="Request headers"
          text={headers || 'No headers recorded'}
          copy={
            headers ? { what: `request headers of attempt ${attempt.attempt}`, value: headers } : undefined
          }
          name={`Request headers of attempt ${attempt.attempt}`}
          wrap
        />
        <CodeBlock
          title={attempt.statusCode === null ? 'Response body' : `Response body (HTTP ${attempt.statusCode})`}
          text={
            attempt.responseBody
              ? prettyJson(attempt.responseBody)
              : attempt.statusCode === null
                ? 'No response was received'
                : 'Empty body'
          }
          name={`Response body of attempt ${attempt.attempt}`}
        />
      </div>
    </li>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function CodeBlock({
  title,
  text,
  copy,
  name = title,
  wrap = false,
}: {
  title: string;
  text: string;
  /** What the copy button copies (its name) and the text it copies; no button without it. */
  copy?: { what: string; value: string } | undefined;
  /** The block's accessible name when the title alone repeats (one per attempt). */
  name?: string;
  /** Long lines wrap instead of scrolling sideways (headers: a signature is one long line). */
  wrap?: boolean;
}) {
  return (
    <div className="min-w-0">
      <div className="mb-1 flex min-h-8 items-center justify-between gap-2">
        <p className="text-xs font-medium uppercase tracking-wide text-zinc-500">{title}</p>
        {copy ? <InlineCopyButton value={copy.value} what={copy.what} /> : null}
      </div>
      <section
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the block scrolls on its own; keyboard users must be able to focus it to scroll it (WCAG 2.1.1, axe scrollable-region-focusable)
        tabIndex={0}
        aria-label={name}
        className="max-h-72 min-w-0 overflow-auto rounded-md bg-zinc-50 p-3 ring-1 ring-zinc-200"
      >
        <pre
          className={`font-mono text-xs text-zinc-800 ${wrap ? 'whitespace-pre-wrap break-all' : 'whitespace-pre'}`}
        >
          {text}
        </pre>
      </section>
    </div>
  );
}
