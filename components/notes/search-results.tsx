'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { Platform } from '@/server/domain';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { EmptyState, ErrorMessage, Loading } from '../ui/card';
import { Highlight } from './highlight';
import { formatTimestamp, noteTitle, PLATFORM_LABELS, type SearchHit } from './note-format';
import { SINCE_DAYS, type SinceDays } from './since';

/** The most the search procedure answers; the first PAGE are shown, the rest behind "Show more". */
const RESULT_LIMIT = 50;
const PAGE = 20;
export const SEARCH_MAX_CHARS = 256;

/**
 * Honest relevance: the server labels each hit with the calibration of the configured
 * embedder. Strong matches are listed; weaker ones are folded under "Weaker matches"; when nothing
 * is even a close match the page says so rather than dressing up the nearest noise as a result.
 * (The API itself answers the top `limit` with their scores and no threshold.)
 */
export function SearchResults({
  q,
  speaker = null,
  platform,
  since = null,
  onClear,
}: {
  q: string;
  /** Only moments where this person speaks. */
  speaker?: string | null;
  platform: Platform | null;
  /** Only notes recorded in the past this many days. */
  since?: SinceDays | null;
  onClear(): void;
}) {
  const trpc = useTRPC();
  const tooLong = q.length > SEARCH_MAX_CHARS;
  const search = useQuery({
    ...trpc.notes.search.queryOptions({
      q,
      limit: RESULT_LIMIT,
      ...(platform && { platform }),
      ...(since && { sinceDays: since }),
      ...(speaker && { speaker }),
    }),
    enabled: !tooLong,
  });

  return (
    <section aria-labelledby="search-heading">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 id="search-heading" className="text-sm font-medium text-zinc-800">
          Passages matching “{tooLong ? `${q.slice(0, 60)}…` : q}”{speaker ? ` spoken by ${speaker}` : ''}
          {platform ? ` on ${PLATFORM_LABELS[platform]}` : ''}
          {since ? `, ${SINCE_DAYS[since].toLowerCase()}` : ''}
        </h2>
        <Button variant="ghost" onClick={onClear}>
          ← Back to all notes
        </Button>
      </div>

      {tooLong ? (
        <EmptyState title="That search is too long">
          Searches can be up to {SEARCH_MAX_CHARS} characters. Try a shorter phrase: a few words about what
          was said work best.
        </EmptyState>
      ) : search.isPending ? (
        <Loading label="Searching…" />
      ) : search.isError ? (
        <ErrorMessage error={search.error} onRetry={() => search.refetch()} retrying={search.isFetching} />
      ) : search.data.length === 0 ? (
        speaker || platform || since ? (
          <EmptyState title="No passages match these filters">
            {speaker
              ? `“Spoken by” needs the speaker's whole name as the transcript has it (case does not matter). `
              : ''}
            Widen the period or the platform, or clear the speaker, to search more meetings.
          </EmptyState>
        ) : (
          <EmptyState title="Nothing to search yet">
            Meetings become searchable a few seconds after their transcript arrives.
          </EmptyState>
        )
      ) : (
        <RankedResults key={q} hits={search.data} q={q} />
      )}
    </section>
  );
}

function RankedResults({ hits, q }: { hits: SearchHit[]; q: string }) {
  const [shown, setShown] = useState(PAGE);
  const strong = hits.filter((h) => h.relevance === 'strong');
  // Without a strong match, the close ones lead; below "close" nothing is offered as a result.
  const lead = strong.length ? strong : hits.filter((h) => h.relevance === 'weak');
  const rest = hits.filter((h) => !lead.includes(h));
  const visible = lead.slice(0, shown);
  return (
    <>
      {lead.length === 0 ? (
        <div data-testid="no-close-matches">
          <EmptyState title="No close matches">
            Nothing in your meetings is close to “{q}”. Try describing what was said in other words; the
            nearest passages are below.
          </EmptyState>
        </div>
      ) : (
        <ol className="space-y-3" data-testid="strong-results">
          {visible.map((hit) => (
            <SearchResult key={`${hit.noteId}:${hit.sequence}`} hit={hit} q={q} />
          ))}
        </ol>
      )}
      {lead.length > shown ? (
        <div className="mt-3">
          <Button variant="secondary" onClick={() => setShown((n) => n + PAGE)}>
            Show more ({lead.length - shown} more)
          </Button>
        </div>
      ) : null}
      {rest.length && lead.length <= shown ? (
        <details className="mt-6" data-testid="weaker-matches">
          <summary className="cursor-pointer text-sm font-medium text-zinc-600">
            Weaker matches ({rest.length})
          </summary>
          <ol className="mt-3 space-y-3">
            {rest.map((hit) => (
              <SearchResult key={`${hit.noteId}:${hit.sequence}`} hit={hit} q={q} weak />
            ))}
          </ol>
        </details>
      ) : null}
    </>
  );
}

function SearchResult({ hit, q, weak = false }: { hit: SearchHit; q: string; weak?: boolean }) {
  // The similarity (cosine, raised by the query's words): shown as a share of a perfect match.
  const percent = Math.round(Math.min(1, Math.max(0, hit.score)) * 100);
  return (
    <li
      data-testid={weak ? 'weak-search-result' : 'search-result'}
      data-note-id={hit.noteId}
      data-relevance={hit.relevance}
    >
      <Link
        href={`/notes/${hit.noteId}?t=${hit.startTime}`}
        className={`block rounded-lg bg-white p-4 shadow-sm ring-1 ring-zinc-200 hover:ring-indigo-300 focus-visible:ring-indigo-600 ${weak ? 'opacity-80' : ''}`}
      >
        <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
          <p
            className={`text-sm font-medium ${hit.title?.trim() ? 'text-zinc-900' : 'italic text-zinc-600'}`}
          >
            {noteTitle(hit.title)}{' '}
            <span className="font-normal text-zinc-500">at {formatTimestamp(hit.startTime)}</span>
          </p>
          <div
            className="flex items-center gap-2 text-xs text-zinc-500"
            title={`Similarity ${hit.score.toFixed(3)}`}
          >
            <span aria-hidden="true" className="block h-1.5 w-16 overflow-hidden rounded-full bg-zinc-200">
              <span className="block h-full rounded-full bg-indigo-500" style={{ width: `${percent}%` }} />
            </span>
            <span>{percent}% match</span>
          </div>
        </div>
        <p className="mt-2 text-sm leading-relaxed text-zinc-700">
          <Highlight text={hit.snippet} query={q} />
        </p>
      </Link>
    </li>
  );
}
