import { Suspense } from 'react';
import { VerifyEmail } from '@/components/auth/verify-email';

export const metadata = { title: 'Verify your email · Meeting Notes' };

export default function VerifyEmailPage() {
  return (
    <Suspense>
      <VerifyEmail />
    </Suspense>
  );
}
