import { type SQL, sql } from 'drizzle-orm';

/**
 * A delivery's state as the settings app shows it. Stored statuses are
 * pending, succeeded, failed and cancelled; `retrying` is a pending delivery that has had an
 * attempt (its next one is due at next_attempt_at). Keeping it derived keeps the dispatcher's claim
 * a single indexed condition.
 */
export const DELIVERY_STATES = ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The state of the delivery row aliased `d`, as SQL. */
export const deliveryStateSql = sql`case when d.status = 'pending' and d.attempts_made > 0 then 'retrying' else d.status end`;

/** The condition "the delivery row `d` is in `state`". */
export function inDeliveryState(state: DeliveryState): SQL {
  switch (state) {
    case 'pending':
      return sql`(d.status = 'pending' and d.attempts_made = 0)`;
    case 'retrying':
      return sql`(d.status = 'pending' and d.attempts_made > 0)`;
    default:
      return sql`d.status = ${state}`;
  }
}
