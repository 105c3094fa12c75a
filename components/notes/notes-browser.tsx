'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { Button } from '../ui/button';
import { PageHeader } from '../ui/card';
import { SelectField, TextField } from '../ui/field';
import { NoteList } from './note-list';
import { isPlatform, PLATFORM_LABELS, PLATFORMS } from './note-format';
import { SEARCH_MAX_CHARS, SearchResults } from './search-results';
import { SINCE_DAYS, type SinceDays, sinceFrom } from './since';

/** At most this many pages come back from a URL (20 notes each). */
const MAX_PAGES = 50;

function pagesFrom(value: string | null): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 1 ? Math.min(n, MAX_PAGES) : 1;
}

/**
 * The notes page. The query (?q=), the speaker it is narrowed to (?speaker=), the platform
 * (?platform=) and the period (?since=) live in the URL, so coming back from a note returns to the
 * same results and a search can be shared.
 */
export function NotesBrowser() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const q = params.get('q')?.trim() ?? '';
  const platformParam = params.get('platform');
  const platform = isPlatform(platformParam) ? platformParam : null;
  const since = sinceFrom(params.get('since'));
  const speaker = params.get('speaker')?.trim() || null;
  // How many pages of the list are shown is in the URL too (?pages=), so a
  // reload or Back from a note shows as much of the list as before.
  const pages = pagesFrom(params.get('pages'));

  const [draft, setDraft] = useState(q);
  const [speakerDraft, setSpeakerDraft] = useState(speaker ?? '');
  // Follow the URL when it changes underneath the form (back and forward, the clear button).
  const [shown, setShown] = useState({ q, speaker });
  if (shown.q !== q || shown.speaker !== speaker) {
    setShown({ q, speaker });
    setDraft(q);
    setSpeakerDraft(speaker ?? '');
  }

  function navigate(
    next: {
      q?: string;
      speaker?: string | null;
      platform?: string | null;
      since?: SinceDays | null;
      pages?: number;
    },
    mode: 'push' | 'replace',
  ) {
    const search = new URLSearchParams();
    const nextPlatform = next.platform === undefined ? platform : next.platform;
    const nextSince = next.since === undefined ? since : next.since;
    const nextQ = next.q === undefined ? q : next.q;
    const nextSpeaker = next.speaker === undefined ? speaker : next.speaker;
    if (nextPlatform) search.set('platform', nextPlatform);
    if (nextSince) search.set('since', String(nextSince));
    if (nextQ) search.set('q', nextQ);
    if (nextQ && nextSpeaker) search.set('speaker', nextSpeaker);
    // Another filter starts the list again from its first page.
    if (next.pages && next.pages > 1) search.set('pages', String(next.pages));
    const url = search.size ? `${pathname}?${search}` : pathname;
    if (mode === 'push') router.push(url, { scroll: false });
    else router.replace(url, { scroll: false });
  }

  function onSearch(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    navigate({ q: draft.trim(), speaker: speakerDraft.trim() || null }, 'push');
  }

  function clearSearch() {
    setDraft('');
    setSpeakerDraft('');
    navigate({ q: '', speaker: null }, 'push');
  }

  return (
    <div>
      <PageHeader
        title="Notes"
        description="Your recorded meetings with their transcripts and summaries. Search finds the passages that match what you describe, in your words or theirs, with the moment they were said."
      />

      <div className="mb-6 flex flex-col gap-4 md:flex-row md:items-end">
        <search className="grow">
          <form
            data-testid="notes-search-form"
            onSubmit={onSearch}
            className="flex flex-col gap-2 sm:flex-row sm:items-end"
          >
            <div className="grow">
              <TextField
                label="Search your meetings"
                name="q"
                type="search"
                value={draft}
                onChange={(e) => setDraft(e.target.value)}
                // No maxLength: a pasted question is not cut silently; it is told it is too long
                // (a too-long search from the address is explained where its results would be).
                error={
                  draft.length > SEARCH_MAX_CHARS && draft !== q
                    ? `That search is ${draft.length} characters; searches can be up to ${SEARCH_MAX_CHARS}. Try a shorter phrase.`
                    : null
                }
                placeholder="e.g. budget for the launch"
                autoComplete="off"
                enterKeyHint="search"
              />
            </div>
            <div className="sm:w-40">
              <TextField
                label="Spoken by"
                name="speaker"
                value={speakerDraft}
                onChange={(e) => setSpeakerDraft(e.target.value)}
                placeholder="Anyone"
                autoComplete="off"
                maxLength={200}
              />
            </div>
            <div className="flex gap-2">
              <Button type="submit" disabled={!draft.trim() || draft.length > SEARCH_MAX_CHARS}>
                Search
              </Button>
              {q || draft || speakerDraft ? (
                <Button variant="secondary" onClick={clearSearch}>
                  Clear
                </Button>
              ) : null}
            </div>
          </form>
        </search>

        <div className="md:w-44">
          <SelectField
            label="Recorded"
            data-testid="since-filter"
            value={since ?? ''}
            onChange={(e) => navigate({ since: sinceFrom(e.target.value) }, 'replace')}
          >
            <option value="">Any time</option>
            {Object.entries(SINCE_DAYS).map(([days, label]) => (
              <option key={days} value={days}>
                {label}
              </option>
            ))}
          </SelectField>
        </div>

        <div className="md:w-44">
          <SelectField
            label="Platform"
            data-testid="platform-filter"
            value={platform ?? ''}
            onChange={(e) => navigate({ platform: e.target.value || null }, 'replace')}
          >
            <option value="">All</option>
            {PLATFORMS.map((p) => (
              <option key={p} value={p}>
                {PLATFORM_LABELS[p]}
              </option>
            ))}
          </SelectField>
        </div>
      </div>

      {q ? (
        <SearchResults q={q} speaker={speaker} platform={platform} since={since} onClear={clearSearch} />
      ) : (
        <NoteList
          platform={platform}
          since={since}
          pages={pages}
          onMore={(n) => navigate({ pages: n }, 'replace')}
        />
      )}
    </div>
  );
}
