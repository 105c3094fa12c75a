import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import type { ReactNode } from 'react';
import { SettingsNav } from '@/components/settings-nav';
import { authOptions } from '@/server/auth/auth-options';

export const dynamic = 'force-dynamic';

export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(authOptions());
  if (!session?.accountId) redirect('/sign-in');
  return (
    <div className="min-h-screen">
      <SettingsNav email={session.user?.email ?? ''} />
      <main className="mx-auto max-w-6xl px-4 py-8">{children}</main>
    </div>
  );
}
