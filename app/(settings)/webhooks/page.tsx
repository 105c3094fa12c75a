import { WebhooksPage } from '@/components/webhooks/webhooks-page';
import { getEnv } from '@/server/env';

export const metadata = { title: 'Webhooks · Meeting Notes' };

export default function Page() {
  // The new endpoint's URL hint says whether this server accepts private and http:// URLs.
  return <WebhooksPage allowPrivateUrls={getEnv().WEBHOOK_ALLOW_PRIVATE_URLS} />;
}
