import { AccountConsolePage } from '@/components/admin/account-console-page';

export const metadata = { title: 'Account · Operator console · Meeting Notes' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <AccountConsolePage id={id} />;
}
