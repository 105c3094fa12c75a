import Link from 'next/link';
import { getServerSession } from 'next-auth';
import { Suspense } from 'react';
import { ApiReference } from '@/components/docs/api-reference';
import { VerifyDeliveries } from '@/components/docs/verify-deliveries';
import { SettingsShell } from '@/components/settings-shell';
import { Loading } from '@/components/ui/card';
import { authOptions } from '@/server/auth/auth-options';

// Public: the reference is readable without signing in. Signed in, it sits inside the settings
// app's frame, its navigation included.
export const metadata = {
  title: 'API reference · Meeting Notes',
  description: 'The OpenAPI reference of the Meeting Notes /v1 API, in Form A and Form B.',
};

export const dynamic = 'force-dynamic';

const reference = (
  <div className="space-y-8">
    <Suspense fallback={<Loading label="Loading the API reference…" />}>
      <ApiReference />
    </Suspense>
    <VerifyDeliveries />
  </div>
);

export default async function DocsPage() {
  const session = await getServerSession(authOptions()).catch(() => null);
  if (session?.accountId) return <SettingsShell email={session.user?.email ?? ''}>{reference}</SettingsShell>;
  return (
    <div className="min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-3 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-indigo-700 focus:shadow focus:ring-2 focus:ring-indigo-500"
      >
        Skip to content
      </a>
      <header className="border-b border-zinc-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <Link href="/" className="font-semibold tracking-tight">
            Meeting Notes
          </Link>
          <nav aria-label="Docs" className="ml-auto flex gap-1 text-sm">
            <Link
              href="/sign-in"
              className="rounded-md px-3 py-1.5 font-medium text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900"
            >
              Sign in
            </Link>
          </nav>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-8 focus:outline-none">
        {reference}
      </main>
    </div>
  );
}
