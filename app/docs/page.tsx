import Link from 'next/link';
import { Suspense } from 'react';
import { ApiReference } from '@/components/docs/api-reference';
import { Loading } from '@/components/ui/card';

// Public: the reference is readable without signing in.
export const metadata = {
  title: 'API reference · Meeting Notes',
  description: 'The OpenAPI reference of the Meeting Notes /v1 API, in Form A and Form B.',
};

export default function DocsPage() {
  return (
    <div className="min-h-screen">
      <header className="border-b border-zinc-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <Link href="/" className="font-semibold tracking-tight">
            Meeting Notes
          </Link>
          <nav aria-label="Docs" className="ml-auto flex gap-1 text-sm">
            <Link
              href="/keys"
              className="rounded-md px-3 py-1.5 font-medium text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900"
            >
              ← API keys
            </Link>
          </nav>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-8">
        <Suspense fallback={<Loading label="Loading the API reference…" />}>
          <ApiReference />
        </Suspense>
      </main>
    </div>
  );
}
