import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import type { ReactNode } from 'react';
import { REQUESTED_PATH_HEADER, signInPathFor } from '@/components/auth/callback-path';
import { SettingsNav } from '@/components/settings-nav';
import { authOptions } from '@/server/auth/auth-options';

export const dynamic = 'force-dynamic';

export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(authOptions());
  // Signed out: sign in, then come back to the page that was asked for (proxy.ts names it).
  if (!session?.accountId) redirect(signInPathFor((await headers()).get(REQUESTED_PATH_HEADER)));
  return (
    <div className="min-h-screen">
      {/* Issue 15 item 5: the first Tab stop skips the navigation. */}
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-3 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-indigo-700 focus:shadow focus:ring-2 focus:ring-indigo-500"
      >
        Skip to content
      </a>
      <SettingsNav email={session.user?.email ?? ''} />
      <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-8 focus:outline-none">
        {children}
      </main>
    </div>
  );
}
