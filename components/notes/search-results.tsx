'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { EmptyState, ErrorMessage, Loading } from '../ui/card';
import { Highlight } from './highlight';
import { formatTimestamp, noteTitle, type SearchHit } from './note-format';

const RESULT_LIMIT = 20;

export function SearchResults({ q, onClear }: { q: string; onClear(): void }) {
  const trpc = useTRPC();
  const search = useQuery(trpc.notes.search.queryOptions({ q, limit: RESULT_LIMIT }));

  return (
    <section aria-labelledby="search-heading">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 id="search-heading" className="text-sm font-medium text-zinc-800">
          Passages matching “{q}”
        </h2>
        <Button variant="ghost" onClick={onClear}>
          ← Back to all notes
        </Button>
      </div>

      {search.isPending ? (
        <Loading label="Searching…" />
      ) : search.isError ? (
        <ErrorMessage error={search.error} />
      ) : search.data.length === 0 ? (
        <EmptyState title="No passages match">Try other words: search matches the words that were said (and their other forms), so use the words people would have used in the meeting.</EmptyState>
      ) : (
        <ol className="space-y-3">
          {search.data.map((hit, i) => (
            <SearchResult key={`${hit.noteId}-${hit.startTime}-${i}`} hit={hit} q={q} />
          ))}
        </ol>
      )}
    </section>
  );
}

function SearchResult({ hit, q }: { hit: SearchHit; q: string }) {
  // Cosine similarity: shown as a share of a perfect match.
  const percent = Math.round(Math.min(1, Math.max(0, hit.score)) * 100);
  return (
    <li data-testid="search-result" data-note-id={hit.noteId}>
      <Link
        href={`/notes/${hit.noteId}?t=${hit.startTime}`}
        className="block rounded-lg bg-white p-4 shadow-sm ring-1 ring-zinc-200 hover:ring-indigo-300 focus-visible:ring-indigo-600"
      >
        <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
          <p className={`text-sm font-medium ${hit.title?.trim() ? 'text-zinc-900' : 'italic text-zinc-600'}`}>
            {noteTitle(hit.title)} <span className="font-normal text-zinc-500">at {formatTimestamp(hit.startTime)}</span>
          </p>
          <div className="flex items-center gap-2 text-xs text-zinc-500" title={`Similarity ${hit.score.toFixed(3)}`}>
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
