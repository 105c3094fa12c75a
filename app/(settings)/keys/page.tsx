import { KeysPage } from '@/components/keys/keys-page';

export const metadata = { title: 'API keys · Meeting Notes' };

export default function Page() {
  return <KeysPage />;
}
