import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import type { ReactNode } from 'react';
import { REQUESTED_PATH_HEADER, signInPathFor } from '@/components/auth/callback-path';
import { SettingsShell } from '@/components/settings-shell';
import { authOptions } from '@/server/auth/auth-options';

export const dynamic = 'force-dynamic';

export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(authOptions());
  // Signed out: sign in, then come back to the page that was asked for (proxy.ts names it).
  if (!session?.accountId) redirect(signInPathFor((await headers()).get(REQUESTED_PATH_HEADER)));
  return <SettingsShell email={session.user?.email ?? ''}>{children}</SettingsShell>;
}
