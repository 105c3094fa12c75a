import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import type { Platform } from '@/server/domain';
import { Badge } from '../ui/card';

type NotesOutputs = inferRouterOutputs<AppRouter>['notes'];
export type NoteListItem = NotesOutputs['list']['items'][number];
export type NoteDetailData = NotesOutputs['get'];
export type SearchHit = NotesOutputs['search'][number];
export type NoteSummaryData = NonNullable<NoteDetailData['summary']>;

/** In the order the filter offers them; the values are the API's platform names. */
export const PLATFORM_LABELS: Record<Platform, string> = {
  meet: 'Google Meet',
  zoom: 'Zoom',
  teams: 'Microsoft Teams',
  phone: 'Phone',
  microphone: 'Microphone',
};

export const PLATFORMS = Object.keys(PLATFORM_LABELS) as Platform[];

export const isPlatform = (value: string | null): value is Platform =>
  value !== null && value in PLATFORM_LABELS;

export function PlatformBadge({ platform }: { platform: Platform }) {
  return <Badge color="indigo">{PLATFORM_LABELS[platform] ?? platform}</Badge>;
}

export const noteTitle = (title: string | null) => title?.trim() || 'Untitled meeting';

/** A duration as m:ss, minutes unbounded (75:03 for an hour and a quarter). */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/** A position in the recording as mm:ss, or h:mm:ss from the first hour on. */
export function formatTimestamp(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${String(m).padStart(2, '0')}:${s}`;
}

const started = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatStarted(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : started.format(date);
}

const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDay(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : day.format(date);
}

/** Whether two instants fall on the same calendar day where the page is read. */
export function sameDay(a: string, b: string): boolean {
  return formatDay(a) === formatDay(b);
}

export function formatLanguage(code: string): string {
  try {
    const name = new Intl.DisplayNames(undefined, { type: 'language' }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** z.guid()'s shape: anything else cannot name a note, so it is not looked up. */
export const looksLikeNoteId = (id: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
