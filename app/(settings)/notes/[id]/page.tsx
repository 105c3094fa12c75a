import { Suspense } from 'react';
import { NoteDetail } from '@/components/notes/note-detail';
import { Loading } from '@/components/ui/card';

export const metadata = { title: 'Note · Meeting Notes' };

export default async function NotePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<Loading label="Loading note…" />}>
      <NoteDetail id={id} />
    </Suspense>
  );
}
