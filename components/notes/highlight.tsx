import type { ReactNode } from 'react';
import { matchSpans } from '@/server/text/tokenize';

// Marks the words of a snippet that match a word of the query, read by the search's own
// tokenizer (case and accents folded, English stems, stop words left out), so "budgets" lights
// up for "budget". server/text/tokenize.ts is pure and client-safe.

export function Highlight({ text, query }: { text: string; query: string }) {
  const spans = matchSpans(text, query);
  if (spans.length === 0) return <>{text}</>;

  const parts: ReactNode[] = [];
  let last = 0;
  for (const { start, end } of spans) {
    if (start > last) parts.push(text.slice(last, start));
    parts.push(
      <mark key={start} className="rounded-sm bg-amber-100 px-0.5 text-zinc-900">
        {text.slice(start, end)}
      </mark>,
    );
    last = end;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}
