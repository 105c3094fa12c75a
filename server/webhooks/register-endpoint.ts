import type { Db } from '../db/client';
import type { FormName, WebhookEvent } from '../domain';
import { createEndpoint, type WebhookEndpoint } from './endpoints';
import type { SecretBox } from './secret-box';
import { checkWebhookUrl, type Resolver } from './url-guard';

/** Where a webhook URL may point: WEBHOOK_ALLOW_PRIVATE_URLS, and the resolver tests swap in. */
export interface WebhookUrlPolicy {
  allowPrivateUrls: boolean;
  resolve?: Resolver;
}

export interface EndpointRegistration {
  url: string;
  events: readonly WebhookEvent[];
  /** The owner's label (settings app); empty through /v1. */
  description?: string;
  /**
   * The endpoint's API form: its name, and its secret format. The caller looks the form up
   * in the form registry; this module does not know the forms.
   */
  form: { name: FormName; newWebhookSecret(): string };
}

/**
 * Registers a webhook endpoint, for /v1 (both forms) and the settings app alike: the URL must be
 * https and public (docs/rules.md#webhook-urls-and-secrets), events are kept once each in the order
 * given, and an account has at
 * most 25 endpoints with distinct URLs (createEndpoint).
 */
export async function registerEndpoint(
  db: Db,
  policy: WebhookUrlPolicy & { secrets: SecretBox },
  accountId: string,
  input: EndpointRegistration,
): Promise<WebhookEndpoint> {
  const url = await checkEndpointUrl(policy, input.url);
  const secret = input.form.newWebhookSecret();
  const endpoint = await createEndpoint(db, {
    accountId,
    url,
    events: [...new Set(input.events)],
    description: input.description ?? '',
    form: input.form.name,
    secret: policy.secrets.seal(secret),
  });
  // The one answer that carries the secret in plain text; the database keeps it sealed.
  return { ...endpoint, secret };
}

/** The URL check at registration and at every edit: https, public, normalised. */
export async function checkEndpointUrl(policy: WebhookUrlPolicy, raw: string): Promise<string> {
  const { url } = await checkWebhookUrl(raw, {
    allowPrivate: policy.allowPrivateUrls,
    ...(policy.resolve && { resolve: policy.resolve }),
  });
  return url.toString();
}
