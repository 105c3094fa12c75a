import { Suspense } from 'react';
import { NotesBrowser } from '@/components/notes/notes-browser';
import { Loading } from '@/components/ui/card';

export const metadata = { title: 'Notes · Meeting Notes' };

export default function NotesPage() {
  return (
    <Suspense fallback={<Loading label="Loading notes…" />}>
      <NotesBrowser />
    </Suspense>
  );
}
