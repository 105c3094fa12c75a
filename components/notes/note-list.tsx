'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect } from 'react';
import type { Platform } from '@/server/domain';
import { SINCE_DAYS, type SinceDays } from './since';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, EmptyState, ErrorMessage, Loading } from '../ui/card';
import {
  formatDay,
  formatDuration,
  formatStarted,
  noteTitle,
  PLATFORM_LABELS,
  PlatformBadge,
  type NoteListItem,
  sameDay,
} from './note-format';

const PAGE_SIZE = 20;

export function NoteList({
  platform,
  since = null,
  pages = 1,
  onMore,
}: {
  platform: Platform | null;
  /** Only notes recorded in the past this many days. */
  since?: SinceDays | null;
  /** How many pages the URL asks for (?pages=): loaded one after the other. */
  pages?: number;
  onMore?(pages: number): void;
}) {
  const trpc = useTRPC();
  const notes = useInfiniteQuery(
    trpc.notes.list.infiniteQueryOptions(
      { platform, limit: PAGE_SIZE, ...(since && { sinceDays: since }) },
      {
        getNextPageParam: (page) => page.nextCursor,
        // While meetings wait to become searchable, look again now and then to show when they are.
        refetchInterval: (query) => ((query.state.data?.pages[0]?.awaitingIndex ?? 0) > 0 ? 5_000 : false),
      },
    ),
  );
  const loaded = notes.data?.pages.length ?? 0;
  const { hasNextPage, isFetching, isError, fetchNextPage } = notes;
  useEffect(() => {
    if (loaded > 0 && loaded < pages && hasNextPage && !isFetching && !isError) void fetchNextPage();
  }, [loaded, pages, hasNextPage, isFetching, isError, fetchNextPage]);

  // With the URL keeping the count, the effect above loads the page the URL now asks for.
  function loadMore() {
    if (onMore) onMore(loaded + 1);
    else void fetchNextPage();
  }

  if (notes.isPending) return <Loading label="Loading notes…" />;
  // A failed "Load more" keeps the pages already shown; only a failed first page replaces them.
  if (!notes.data)
    return <ErrorMessage error={notes.error} onRetry={() => notes.refetch()} retrying={notes.isFetching} />;

  const items = notes.data.pages.flatMap((page) => page.items);
  const awaitingIndex = notes.data.pages[0]?.awaitingIndex ?? 0;
  if (items.length === 0)
    return platform || since ? (
      <EmptyState
        title={`No meetings${platform ? ` from ${PLATFORM_LABELS[platform]}` : ''}${since ? ` in the ${SINCE_DAYS[since].toLowerCase()}` : ''}`}
      >
        {platform
          ? 'Choose “All” to see meetings from every platform.'
          : 'Choose “Any time” to see every meeting.'}
      </EmptyState>
    ) : (
      <EmptyState title="No meetings yet">
        <p>
          Meetings arrive here when they are recorded: through the desktop recorder, or sent by your own
          recorder through the recorder API. Each one appears with its transcript, and with its summary once
          that is generated.
        </p>
      </EmptyState>
    );

  return (
    <div>
      {awaitingIndex > 0 ? (
        <p data-testid="awaiting-index" role="status" className="mb-3 text-sm text-zinc-600">
          {awaitingIndex === 1 ? 'One meeting is' : `${awaitingIndex} meetings are`} being indexed: search
          finds {awaitingIndex === 1 ? 'it' : 'them'} once that is done.
        </p>
      ) : null}
      <ul className="divide-y divide-zinc-200 overflow-hidden rounded-lg bg-white shadow-sm ring-1 ring-zinc-200">
        {items.map((note) => (
          <NoteRow key={note.id} note={note} />
        ))}
      </ul>
      <div className="mt-4 flex flex-col items-center gap-2">
        <ErrorMessage
          error={notes.isFetchNextPageError ? notes.error : null}
          onRetry={() => notes.fetchNextPage()}
          retrying={notes.isFetchingNextPage}
        />
        {notes.hasNextPage ? (
          <Button variant="secondary" onClick={loadMore} disabled={notes.isFetchingNextPage}>
            {notes.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </Button>
        ) : (
          <p className="text-xs text-zinc-500">
            {items.length === 1 ? 'One meeting' : `${items.length} meetings`}
            {platform ? ` from ${PLATFORM_LABELS[platform]}` : ''}, all shown.
          </p>
        )}
      </div>
    </div>
  );
}

function NoteRow({ note }: { note: NoteListItem }) {
  const hasSummary = note.summary !== null || note.summaryText !== null;
  return (
    <li data-testid="note-row" data-note-id={note.id}>
      <Link
        href={`/notes/${note.id}`}
        className="block px-4 py-3 hover:bg-zinc-50 focus-visible:bg-zinc-50 sm:px-6"
      >
        <p
          className={`truncate text-sm font-medium ${note.title?.trim() ? 'text-zinc-900' : 'italic text-zinc-600'}`}
        >
          {noteTitle(note.title)}
        </p>
        <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-600">
          <PlatformBadge platform={note.platform} />
          {/* The list is ordered by when a note was added (newest first), so that
              is the date each row shows; the meeting's own start follows when it was another day. */}
          <span data-testid="note-added">
            Added <time dateTime={note.createdAt}>{formatStarted(note.createdAt)}</time>
          </span>
          {sameDay(note.createdAt, note.startedAt) ? null : (
            <span data-testid="note-started">
              Met <time dateTime={note.startedAt}>{formatDay(note.startedAt)}</time>
            </span>
          )}
          <span>
            <span className="sr-only">Duration </span>
            {formatDuration(note.durationSeconds)}
          </span>
          <span>{note.segments === 1 ? '1 segment' : `${note.segments} segments`}</span>
          {hasSummary ? <Badge color="green">Summary</Badge> : <Badge>No summary yet</Badge>}
          {note.indexing ? (
            <span
              data-testid="note-indexing"
              title="Search finds this meeting once its transcript is indexed."
            >
              <Badge color="amber">Indexing…</Badge>
            </span>
          ) : null}
        </div>
      </Link>
    </li>
  );
}
