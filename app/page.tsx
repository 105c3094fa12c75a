import Link from 'next/link';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { authOptions } from '@/server/auth/auth-options';

export const dynamic = 'force-dynamic';

export default async function Home() {
  if ((await getServerSession(authOptions()))?.accountId) redirect('/notes');
  return (
    <main className="mx-auto max-w-2xl px-4 py-20">
      <h1 className="text-3xl font-semibold tracking-tight">Meeting Notes</h1>
      <p className="mt-3 text-zinc-600">
        A REST API over your recorded meetings: transcripts, AI summaries, semantic search, and webhooks when
        a meeting is recorded, transcribed and summarised.
      </p>
      <div className="mt-8 flex gap-3">
        <Link
          href="/sign-in"
          className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500"
        >
          Sign in
        </Link>
        <Link
          href="/sign-up"
          className="rounded-md px-4 py-2 text-sm font-medium ring-1 ring-zinc-300 hover:bg-white"
        >
          Create an account
        </Link>
        <Link
          href="/docs"
          className="rounded-md px-4 py-2 text-sm font-medium text-indigo-700 hover:underline"
        >
          API reference
        </Link>
      </div>
    </main>
  );
}
