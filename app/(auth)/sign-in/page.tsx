import { Suspense } from 'react';
import { SignInForm } from '@/components/auth/sign-in-form';
import { getEnv } from '@/server/env';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Sign in · Meeting Notes' };

export default function SignInPage() {
  const env = getEnv();
  const oauth = [
    ...(env.GITHUB_ID && env.GITHUB_SECRET ? [{ id: 'github', name: 'GitHub' }] : []),
    ...(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET ? [{ id: 'google', name: 'Google' }] : []),
  ];
  return (
    <Suspense>
      <SignInForm oauth={oauth} />
    </Suspense>
  );
}
