import type { ReactNode } from 'react';
import { stemmer } from 'stemmer';

// Marks the words of a snippet that match a word of the query the way the search tokenizer
// matches them (case and accents folded, English stems), so "budgets" lights up for "budget".
// Stop words are not marked: they carry no meaning in the search either.

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have i in is it its of on or so that the their there this to was we were what when which who will with you'.split(
    ' ',
  ),
);

function stemOf(word: string): string | null {
  const folded = word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  if (STOP_WORDS.has(folded)) return null;
  return /^[a-z]+$/.test(folded) ? stemmer(folded) : folded;
}

export function Highlight({ text, query }: { text: string; query: string }) {
  const stems = new Set([...query.matchAll(WORD)].map((m) => stemOf(m[0])).filter((s): s is string => !!s));
  if (stems.size === 0) return <>{text}</>;

  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const stem = stemOf(m[0]);
    if (!stem || !stems.has(stem)) continue;
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push(
      <mark key={m.index} className="rounded-sm bg-amber-100 px-0.5 text-zinc-900">
        {m[0]}
      </mark>,
    );
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}
