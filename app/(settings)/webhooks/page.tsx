import { WebhooksPage } from '@/components/webhooks/webhooks-page';

export const metadata = { title: 'Webhooks · Meeting Notes' };

export default function Page() {
  return <WebhooksPage />;
}
