import type { ReactNode } from 'react';
import { Badge, Card } from '../ui/card';
import type { NoteSummaryData } from './note-format';

const SENTIMENT_COLOR: Record<string, 'green' | 'red' | 'amber'> = {
  positive: 'green',
  negative: 'red',
  mixed: 'amber',
};

/** The AI summary, or the plain-text one a recorder supplied, or a note that neither exists yet. */
export function NoteSummary({
  summary,
  summaryText,
}: {
  summary: NoteSummaryData | null;
  summaryText: string | null;
}) {
  return (
    <Card>
      <div data-testid="note-summary" data-summary-state={summary || summaryText ? 'ready' : 'pending'}>
        <h2 className="text-base font-semibold">Summary</h2>
        {summary ? (
          <StructuredSummary summary={summary} />
        ) : summaryText ? (
          <p className="mt-3 whitespace-pre-line text-sm text-zinc-700">{summaryText}</p>
        ) : (
          <p className="mt-3 text-sm text-zinc-500">Summary not generated yet.</p>
        )}
      </div>
    </Card>
  );
}

function StructuredSummary({ summary }: { summary: NoteSummaryData }) {
  const empty =
    !summary.context &&
    summary.decisions.length === 0 &&
    summary.action_items.length === 0 &&
    summary.participants.length === 0 &&
    !summary.next_step &&
    !summary.budget_mentioned &&
    !summary.sentiment;
  if (empty) return <p className="mt-3 text-sm text-zinc-500">The summary of this meeting is empty.</p>;

  return (
    <div className="mt-3 space-y-5 text-sm text-zinc-700">
      {summary.context ? <p className="whitespace-pre-line">{summary.context}</p> : null}

      {summary.decisions.length ? (
        <Part title="Decisions">
          <ul className="list-disc space-y-1 pl-5">
            {withKeys(summary.decisions, (d) => d).map(([key, d]) => (
              <li key={key}>{d}</li>
            ))}
          </ul>
        </Part>
      ) : null}

      {summary.action_items.length ? (
        <Part title="Action items">
          <ul className="space-y-2">
            {withKeys(summary.action_items, (item) => item.task).map(([key, item]) => (
              <li key={key} className="rounded-md bg-zinc-50 px-3 py-2 ring-1 ring-inset ring-zinc-200">
                <p className="text-zinc-900">{item.task}</p>
                <p className="mt-0.5 flex flex-wrap gap-x-4 text-xs text-zinc-500">
                  <span>Owner: {item.owner ?? 'unassigned'}</span>
                  <span>Deadline: {item.deadline ?? 'none'}</span>
                </p>
              </li>
            ))}
          </ul>
        </Part>
      ) : null}

      {summary.participants.length ? (
        <Part title="Participants">
          <ul className="flex flex-wrap gap-1.5">
            {withKeys(summary.participants, (p) => p).map(([key, p]) => (
              <li key={key}>
                <Badge>{p}</Badge>
              </li>
            ))}
          </ul>
        </Part>
      ) : null}

      {summary.next_step || summary.budget_mentioned || summary.sentiment ? (
        <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-3">
          {summary.next_step ? <Fact label="Next step">{summary.next_step}</Fact> : null}
          {summary.budget_mentioned ? <Fact label="Budget">{summary.budget_mentioned}</Fact> : null}
          {summary.sentiment ? (
            <Fact label="Sentiment">
              <Badge color={SENTIMENT_COLOR[summary.sentiment.toLowerCase()] ?? 'zinc'}>
                {summary.sentiment}
              </Badge>
            </Fact>
          ) : null}
        </dl>
      ) : null}
    </div>
  );
}

/**
 * Each item with a React key drawn from its content (`keyOf`), repeats told apart by their
 * occurrence ("0:text", "1:text"): a summary's lists have no ids, and the same text may come twice.
 */
function withKeys<T>(items: readonly T[], keyOf: (item: T) => string): [string, T][] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const base = keyOf(item);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return [`${n}:${base}`, item];
  });
}

function Part({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <h3 className="mb-1.5 text-xs font-semibold uppercase tracking-wide text-zinc-500">{title}</h3>
      {children}
    </div>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-semibold uppercase tracking-wide text-zinc-500">{label}</dt>
      <dd className="mt-1">{children}</dd>
    </div>
  );
}
