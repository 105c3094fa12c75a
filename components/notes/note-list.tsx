'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { Platform } from '@/server/domain';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Badge, EmptyState, ErrorMessage, Loading } from '../ui/card';
import {
  formatDuration,
  formatStarted,
  noteTitle,
  PLATFORM_LABELS,
  PlatformBadge,
  type NoteListItem,
} from './note-format';

const PAGE_SIZE = 20;

export function NoteList({ platform }: { platform: Platform | null }) {
  const trpc = useTRPC();
  const notes = useInfiniteQuery(
    trpc.notes.list.infiniteQueryOptions(
      { platform, limit: PAGE_SIZE },
      { getNextPageParam: (page) => page.nextCursor },
    ),
  );

  if (notes.isPending) return <Loading label="Loading notes…" />;
  // A failed "Load more" keeps the pages already shown; only a failed first page replaces them.
  if (!notes.data)
    return (
      <div className="space-y-3">
        <ErrorMessage error={notes.error} />
        <Button variant="secondary" onClick={() => notes.refetch()}>
          Try again
        </Button>
      </div>
    );

  const items = notes.data.pages.flatMap((page) => page.items);
  if (items.length === 0)
    return platform ? (
      <EmptyState title={`No meetings from ${PLATFORM_LABELS[platform]}`}>
        Choose “All” to see meetings from every platform.
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
      <ul className="divide-y divide-zinc-200 overflow-hidden rounded-lg bg-white shadow-sm ring-1 ring-zinc-200">
        {items.map((note) => (
          <NoteRow key={note.id} note={note} />
        ))}
      </ul>
      <div className="mt-4 flex flex-col items-center gap-2">
        <ErrorMessage error={notes.isFetchNextPageError ? notes.error : null} />
        {notes.hasNextPage ? (
          <Button
            variant="secondary"
            onClick={() => notes.fetchNextPage()}
            disabled={notes.isFetchingNextPage}
          >
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
          <time dateTime={note.startedAt}>{formatStarted(note.startedAt)}</time>
          <span>
            <span className="sr-only">Duration </span>
            {formatDuration(note.durationSeconds)}
          </span>
          <span>{note.segments === 1 ? '1 segment' : `${note.segments} segments`}</span>
          {hasSummary ? <Badge color="green">Summary</Badge> : <Badge>No summary yet</Badge>}
        </div>
      </Link>
    </li>
  );
}
