import { Suspense } from 'react';
import { AccountPage } from '@/components/account/account-page';
import { Loading } from '@/components/ui/card';

export const metadata = { title: 'Account · Meeting Notes' };

export default function Page() {
  return (
    <Suspense fallback={<Loading />}>
      <AccountPage />
    </Suspense>
  );
}
