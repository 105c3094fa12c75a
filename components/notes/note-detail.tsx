'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useState, type ReactNode } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { EmptyState, ErrorMessage, Loading, PageHeader } from '../ui/card';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { CopyButton } from '../ui/copy-button';
import { useToast } from '../ui/toast';
import {
  formatDuration,
  formatLanguage,
  formatStarted,
  looksLikeNoteId,
  noteTitle,
  PlatformBadge,
} from './note-format';
import { NoteSummary } from './note-summary';
import { findSegmentAt, Transcript } from './transcript';

const BackLink = () => (
  <Link href="/notes" className="mb-4 inline-block text-sm text-indigo-700 hover:underline">
    ← All notes
  </Link>
);

export function NoteDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const toast = useToast();
  const [deleted, setDeleted] = useState(false);
  const validId = looksLikeNoteId(id);

  const note = useQuery(
    trpc.notes.get.queryOptions(
      { id },
      {
        enabled: validId && !deleted,
        // Not found (unknown, deleted or another account's) is an answer, not a hiccup.
        retry: (failures, error) =>
          error.data?.code !== 'NOT_FOUND' && error.data?.code !== 'BAD_REQUEST' && failures < 1,
      },
    ),
  );

  const remove = useMutation(
    trpc.notes.delete.mutationOptions({
      onSuccess: async () => {
        setDeleted(true);
        queryClient.removeQueries({ queryKey: trpc.notes.get.queryKey({ id }) });
        // To the list, in place of the deleted note's page, so Back does not
        // land on "Note not found".
        toast(`Note “${noteTitle(note.data?.title ?? null)}” deleted`);
        router.replace('/notes');
        await Promise.all([
          queryClient.invalidateQueries(trpc.notes.list.pathFilter()),
          queryClient.invalidateQueries(trpc.notes.search.pathFilter()),
        ]);
      },
    }),
  );

  if (deleted) return <Loading label="Note deleted. Returning to your notes…" />;

  const code = note.error?.data?.code;
  if (!validId || code === 'NOT_FOUND' || code === 'BAD_REQUEST')
    return (
      <div>
        <BackLink />
        <EmptyState title="Note not found">It may have been deleted, or the link may be wrong.</EmptyState>
      </div>
    );
  if (note.isPending) return <Loading label="Loading note…" />;
  if (note.isError)
    return (
      <div className="space-y-3">
        <BackLink />
        <ErrorMessage error={note.error} onRetry={() => note.refetch()} retrying={note.isFetching} />
      </div>
    );

  const data = note.data;
  const t = params.get('t');
  const target = findSegmentAt(
    data.transcript,
    t !== null && t.trim() !== '' && Number.isFinite(Number(t)) ? Number(t) : null,
  );

  return (
    <div>
      <BackLink />
      <PageHeader
        title={noteTitle(data.title)}
        actions={
          <ConfirmDialog
            trigger={
              <Button variant="danger" data-testid="delete-note" disabled={remove.isPending}>
                {remove.isPending ? 'Deleting…' : 'Delete note'}
              </Button>
            }
            title="Delete this note?"
            description="The note, its transcript and everything derived from it are removed permanently. This cannot be undone."
            confirmLabel="Delete note"
            pending={remove.isPending}
            onConfirm={() => remove.mutate({ id })}
          />
        }
      />
      {remove.isError ? (
        <div className="mb-4">
          <ErrorMessage
            error={remove.error}
            onRetry={() => remove.mutate({ id })}
            retrying={remove.isPending}
          />
        </div>
      ) : null}

      <dl className="mb-6 grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-4">
        <Fact label="Platform">
          <PlatformBadge platform={data.platform} />
        </Fact>
        <Fact label="Started">
          <time dateTime={data.startedAt}>{formatStarted(data.startedAt)}</time>
        </Fact>
        <Fact label="Duration">{formatDuration(data.durationSeconds)}</Fact>
        <Fact label="Language">{formatLanguage(data.language)}</Fact>
        {/* The id the API and the webhook payloads name the note by (GET /v1/notes/:id, data.id). */}
        <div className="col-span-2 sm:col-span-4">
          <dt className="text-xs font-medium text-zinc-500">Note ID</dt>
          <dd className="mt-1 flex flex-wrap items-center gap-2">
            <code data-testid="note-id" className="min-w-0 break-all font-mono text-xs text-zinc-900">
              {data.id}
            </code>
            <CopyButton value={data.id} label="Copy ID" />
          </dd>
        </div>
      </dl>

      <div className="space-y-6">
        <NoteSummary summary={data.summary} summaryText={data.summaryText} />
        <Transcript noteId={data.id} segments={data.transcript} target={target} />
      </div>
    </div>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium text-zinc-500">{label}</dt>
      <dd className="mt-1 text-zinc-900">{children}</dd>
    </div>
  );
}
