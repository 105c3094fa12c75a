'use client';

import Link from 'next/link';
import { useEffect } from 'react';
import { Card, EmptyState } from '../ui/card';
import { formatTimestamp, type NoteDetailData } from './note-format';

type Segment = NoteDetailData['transcript'][number];

export const segmentAnchor = (sequence: number) => `segment-${sequence}`;

/** The segment a ?t= position points at: the one starting there, else the one playing at that moment. */
export function findSegmentAt(segments: Segment[], t: number | null): Segment | undefined {
  if (t === null || segments.length === 0) return undefined;
  const exact = segments.find((s) => Math.abs(s.startTime - t) < 0.001);
  if (exact) return exact;
  return segments.findLast((s) => s.startTime <= t) ?? segments[0];
}

export function Transcript({
  noteId,
  segments,
  target,
}: {
  noteId: string;
  segments: Segment[];
  target: Segment | undefined;
}) {
  const targetSequence = target?.sequence;

  useEffect(() => {
    // Without ?t=, a #segment-N link still lands on its segment once the transcript has rendered.
    const id = targetSequence !== undefined ? segmentAnchor(targetSequence) : window.location.hash.slice(1);
    if (!id.startsWith('segment-')) return;
    const element = document.getElementById(id);
    if (!element) return;
    const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    element.scrollIntoView({ block: 'center', behavior: reduceMotion ? 'auto' : 'smooth' });
    element.focus({ preventScroll: true });
  }, [targetSequence]);

  return (
    <Card>
      <h2 className="text-base font-semibold">Transcript</h2>
      {segments.length === 0 ? (
        <div className="mt-3">
          <EmptyState title="This meeting has no transcript" />
        </div>
      ) : (
        <ol className="mt-3 space-y-1">
          {segments.map((segment) => {
            const highlighted = segment.sequence === targetSequence;
            return (
              <li
                key={segment.sequence}
                id={segmentAnchor(segment.sequence)}
                tabIndex={-1}
                data-testid="transcript-segment"
                data-start-time={segment.startTime}
                data-highlighted={highlighted || undefined}
                aria-current={highlighted ? 'location' : undefined}
                className={`flex scroll-mt-24 gap-3 rounded-md px-2 py-2 outline-none sm:gap-4 ${highlighted ? 'bg-amber-50 ring-2 ring-amber-300' : 'focus-visible:ring-2 focus-visible:ring-indigo-600'}`}
              >
                <Link
                  href={`/notes/${noteId}?t=${segment.startTime}`}
                  replace
                  scroll={false}
                  className="w-14 shrink-0 pt-0.5 font-mono text-xs tabular-nums text-indigo-700 hover:underline"
                  aria-label={`Link to ${formatTimestamp(segment.startTime)}`}
                >
                  {formatTimestamp(segment.startTime)}
                </Link>
                <div className="min-w-0 text-sm">
                  <p className="font-medium text-zinc-900">{segment.speaker}</p>
                  <p className="whitespace-pre-line break-words text-zinc-700">{segment.content}</p>
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}
