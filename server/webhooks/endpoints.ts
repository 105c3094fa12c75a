import { randomUUID } from 'node:crypto';
import { and, count, desc, eq } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client';
import { accounts, deliveries, webhookEndpoints } from '../db/schema';
import type { FormName, WebhookEvent } from '../domain';
import { conflict, notFound, validationError } from '../errors';

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;

/** At most this many endpoints per account (the next is a 422). */
export const MAX_ENDPOINTS_PER_ACCOUNT = 25;

/** The secret comes from the endpoint's form: each form has its own secret format. */
export interface NewEndpoint {
  accountId: string;
  url: string;
  events: WebhookEvent[];
  description?: string;
  form: FormName;
  /** Sealed (secret-box.ts). */
  secret: string;
}

export async function createEndpoint(db: Db, input: NewEndpoint): Promise<WebhookEndpoint> {
  return db.transaction(async (tx) => {
    // The account row lock makes count-then-insert one step: concurrent creations cannot pass 25.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId)).for('update');
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.accountId, input.accountId));
    if ((existing?.n ?? 0) >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw validationError(`An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints`);
    }
    return insertEndpoint(tx, input);
  });
}

async function insertEndpoint(db: Queryable, input: NewEndpoint): Promise<WebhookEndpoint> {
  const now = new Date();
  const rows = await db
    .insert(webhookEndpoints)
    .values({
      id: randomUUID(),
      accountId: input.accountId,
      url: input.url,
      events: input.events,
      description: input.description ?? '',
      form: input.form,
      secret: input.secret,
      activeSince: now,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!rows[0]) throw conflict(`An endpoint with the url ${input.url} is already registered`);
  return rows[0];
}

export async function listEndpoints(db: Queryable, accountId: string): Promise<WebhookEndpoint[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.accountId, accountId))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
}

export async function getEndpointOrThrow(
  db: Queryable,
  accountId: string,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const [endpoint] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.accountId, accountId)));
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

/** Removes the endpoint at once; its pending deliveries go with it (cascade). */
export async function deleteEndpointOrThrow(
  db: Queryable,
  accountId: string,
  endpointId: string,
): Promise<void> {
  const deleted = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.accountId, accountId)))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw notFound('Webhook endpoint');
}

/**
 * Re-enabling (offered in the settings app, not through /v1). Events that happened
 * while the endpoint was inactive are not replayed: only events from now on reach it.
 */
export async function reenableEndpointOrThrow(
  db: Queryable,
  accountId: string,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const endpoint = await getEndpointOrThrow(db, accountId, endpointId);
  if (endpoint.active) return endpoint;
  const [updated] = await db
    .update(webhookEndpoints)
    .set({ active: true, activeSince: new Date(), deactivatedAt: null, deactivatedByDeliveryId: null })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning();
  // Deleted since it was read above.
  if (!updated) throw notFound('Webhook endpoint');
  return updated;
}

/**
 * Marks the endpoint inactive, naming the delivery whose fourth failure did it, and cancels its
 * other pending deliveries; true if this call did it.
 */
export async function deactivateEndpoint(
  db: Queryable,
  endpointId: string,
  byDeliveryId: string,
): Promise<boolean> {
  const changed = await db
    .update(webhookEndpoints)
    .set({ active: false, deactivatedAt: new Date(), deactivatedByDeliveryId: byDeliveryId })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.active, true)))
    .returning({ id: webhookEndpoints.id });
  await db
    .update(deliveries)
    .set({
      status: 'cancelled',
      cancelledReason: 'endpoint_deactivated',
      nextAttemptAt: null,
      lockedUntil: null,
    })
    .where(and(eq(deliveries.endpointId, endpointId), eq(deliveries.status, 'pending')));
  return changed.length > 0;
}
