import { Suspense } from 'react';
import { AccountsConsole } from '@/components/admin/accounts-console';
import { Loading } from '@/components/ui/card';

export const metadata = { title: 'Operator console · Meeting Notes' };

export default function Page() {
  return (
    <Suspense fallback={<Loading />}>
      <AccountsConsole />
    </Suspense>
  );
}
