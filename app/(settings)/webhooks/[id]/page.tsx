import { EndpointPage } from '@/components/webhooks/endpoint-page';
import { getEnv } from '@/server/env';

export const metadata = { title: 'Webhook endpoint · Meeting Notes' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // The edit dialog's URL hint says whether this server accepts private and http:// URLs.
  return <EndpointPage id={id} allowPrivateUrls={getEnv().WEBHOOK_ALLOW_PRIVATE_URLS} />;
}
