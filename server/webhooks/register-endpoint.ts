import type { Db } from '../db/client';
import type { FormName, WebhookEvent } from '../domain';
import { createEndpoint, type WebhookEndpoint } from './endpoints';
import { checkWebhookUrl, type Resolver } from './url-guard';

/** Where a webhook URL may point: the service's setting (D12), and the resolver tests swap in. */
export interface WebhookUrlPolicy {
  allowPrivateUrls: boolean;
  resolve?: Resolver;
}

export interface EndpointRegistration {
  url: string;
  events: readonly WebhookEvent[];
  /**
   * The endpoint's API form: its name, and its secret format (D12). The caller looks the form up
   * in the form registry; this module does not know the forms.
   */
  form: { name: FormName; newWebhookSecret(): string };
}

/**
 * Registers a webhook endpoint, for /v1 (both forms) and the settings app alike: the URL must be
 * https and public (D12), events are kept once each in the order given (D8), and an account has at
 * most 25 endpoints with distinct URLs (createEndpoint).
 */
export async function registerEndpoint(
  db: Db,
  policy: WebhookUrlPolicy,
  accountId: string,
  input: EndpointRegistration,
): Promise<WebhookEndpoint> {
  const { url } = await checkWebhookUrl(input.url, {
    allowPrivate: policy.allowPrivateUrls,
    ...(policy.resolve && { resolve: policy.resolve }),
  });
  return createEndpoint(db, {
    accountId,
    url: url.toString(),
    events: [...new Set(input.events)],
    form: input.form.name,
    secret: input.form.newWebhookSecret(),
  });
}
