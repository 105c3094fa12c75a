import { EndpointPage } from '@/components/webhooks/endpoint-page';

export const metadata = { title: 'Webhook endpoint · Meeting Notes' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EndpointPage id={id} />;
}
