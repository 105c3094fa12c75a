import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import { hasPgCode, PG_UNIQUE_VIOLATION } from '../db/pg-error';
import { webhookEndpoints } from '../db/schema';
import { type FormName, WEBHOOK_DESCRIPTION_MAX, type WebhookEvent } from '../domain';
import { conflict, notFound, validationError } from '../errors';
import { getEndpointOrThrow, type WebhookEndpoint } from './endpoints';
import { checkEndpointUrl, type WebhookUrlPolicy } from './register-endpoint';
import type { SecretBox } from './secret-box';

/** The owner's label of an endpoint: one line, like Stripe's and Svix's descriptions. */
export const MAX_DESCRIPTION_LENGTH = WEBHOOK_DESCRIPTION_MAX;

export interface EndpointChanges {
  url?: string;
  events?: readonly WebhookEvent[];
  description?: string;
}

/**
 * Edits an endpoint in place, so its id, secret and delivery history stay. A new URL is checked
 * as at registration (docs/rules.md#webhook-urls-and-secrets); pending deliveries go to the new URL from their next
 * attempt (the dispatcher reads the URL when it claims them). Events already queued are sent even
 * if their event is no longer subscribed: they were subscribed when they happened.
 */
export async function updateEndpoint(
  db: Db,
  policy: WebhookUrlPolicy,
  accountId: string,
  endpointId: string,
  changes: EndpointChanges,
): Promise<WebhookEndpoint> {
  const current = await getEndpointOrThrow(db, accountId, endpointId);
  const set: Partial<typeof webhookEndpoints.$inferInsert> = {};
  if (changes.url !== undefined && changes.url !== current.url) {
    set.url = await checkEndpointUrl(policy, changes.url);
  }
  if (changes.events !== undefined) {
    if (changes.events.length === 0) throw validationError('Choose at least one event');
    set.events = [...new Set(changes.events)];
  }
  if (changes.description !== undefined) {
    const description = changes.description.trim();
    if (description.length > MAX_DESCRIPTION_LENGTH)
      throw validationError(`The description can be at most ${MAX_DESCRIPTION_LENGTH} characters`);
    set.description = description;
  }
  if (Object.keys(set).length === 0) return current;

  return db.transaction(async (tx) => {
    if (set.url !== undefined && set.url !== current.url) {
      const [taken] = await tx
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(
          and(
            eq(webhookEndpoints.accountId, accountId),
            eq(webhookEndpoints.url, set.url),
            ne(webhookEndpoints.id, endpointId),
          ),
        );
      if (taken) throw conflict(`An endpoint with the url ${set.url} is already registered`);
    }
    try {
      const [updated] = await tx
        .update(webhookEndpoints)
        .set(set)
        .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.accountId, accountId)))
        .returning();
      if (!updated) throw notFound('Webhook endpoint');
      return updated;
    } catch (err) {
      // Another edit or registration took the URL between the check and the update.
      if (hasPgCode(err, PG_UNIQUE_VIOLATION))
        throw conflict(`An endpoint with the url ${set.url} is already registered`);
      throw err;
    }
  });
}

/** The longest overlap a rotation may keep the old secret signing. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
/** Svix's default: the old secret keeps signing for a day. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

/**
 * A new secret in the endpoint's form, shown once. The old one keeps signing
 * beside it for `overlapSeconds` (0: stops at once), so a receiver that switches at any moment in
 * between verifies every delivery. Rotating again during an overlap ends the older overlap: only
 * the secret being replaced keeps signing.
 */
export async function rotateEndpointSecret(
  db: Db,
  secrets: SecretBox,
  accountId: string,
  endpointId: string,
  /** `newSecret` makes a secret in the endpoint's own form. */
  input: { overlapSeconds: number; newSecret(form: FormName): string },
): Promise<{ secret: string; endpoint: WebhookEndpoint }> {
  if (
    !Number.isInteger(input.overlapSeconds) ||
    input.overlapSeconds < 0 ||
    input.overlapSeconds > MAX_ROTATION_OVERLAP_SECONDS
  )
    throw validationError(
      `The overlap must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`,
    );
  let secret = '';
  const endpoint = await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ secret: webhookEndpoints.secret, form: webhookEndpoints.form })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.accountId, accountId)))
      .for('update');
    if (!current) throw notFound('Webhook endpoint');
    secret = input.newSecret(current.form);
    const overlap = input.overlapSeconds > 0;
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({
        secret: secrets.seal(secret),
        // Kept sealed; a secret from before encryption is sealed on the way.
        previousSecret: overlap
          ? secrets.isCurrent(current.secret)
            ? current.secret
            : secrets.seal(secrets.open(current.secret))
          : null,
        previousSecretExpiresAt: overlap ? new Date(Date.now() + input.overlapSeconds * 1000) : null,
      })
      .where(eq(webhookEndpoints.id, endpointId))
      .returning();
    if (!updated) throw notFound('Webhook endpoint');
    return updated;
  });
  return { secret, endpoint };
}
