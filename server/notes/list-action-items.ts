import { type SQL, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { meetingConditions, type SearchFilters } from './note-filters';

/** An action item of a meeting's summary, with the meeting it was agreed in. */
export interface ActionItemRecord {
  task: string;
  owner: string | null;
  deadline: string | null;
  meetingId: string;
  meetingTitle: string | null;
  meetingStartedAt: Date;
  meetingCreatedAt: Date;
  /** Its place in the meeting's list, from 1. */
  position: number;
}

export interface ListActionItemsQuery {
  limit: number;
  /** The note filters on the meeting (platform, created range); a speaker is not one of them. */
  filters: Omit<SearchFilters, 'speaker'>;
  /** Only items whose owner's name contains this, case aside. */
  owner?: string;
  /** Keyset position: items after this one, meetings newest first, items in their order. */
  after?: { createdAt: Date; id: string; position: number };
}

/**
 * The action items of the account's summarised notes, the newest meeting's first and each
 * meeting's in the order its summary lists them, in one statement.
 */
export async function listActionItems(
  db: Queryable,
  accountId: string,
  query: ListActionItemsQuery,
): Promise<{ items: ActionItemRecord[]; hasMore: boolean }> {
  const conditions: SQL[] = [meetingConditions(query.filters)];
  if (query.owner) conditions.push(sql` and strpos(lower(a.item->>'owner'), lower(${query.owner})) > 0`);
  if (query.after) {
    const { createdAt, id, position } = query.after;
    const at = sql`${createdAt.toISOString()}::timestamptz`;
    conditions.push(
      sql` and ((m.created_at, m.id) < (${at}, ${id}::uuid) or (m.created_at = ${at} and m.id = ${id}::uuid and a.n > ${position}))`,
    );
  }
  const rows = await queryRows<{
    item: { task?: unknown; owner?: unknown; deadline?: unknown };
    n: number;
    id: string;
    title: string | null;
    started_ms: number;
    created_ms: number;
  }>(
    db,
    sql`select a.item, a.n::int as n, m.id, m.title,
               (extract(epoch from m.started_at) * 1000)::float8 as started_ms,
               (extract(epoch from m.created_at) * 1000)::float8 as created_ms
        from meetings m
        cross join lateral jsonb_array_elements(
          case when jsonb_typeof(m.summary->'action_items') = 'array' then m.summary->'action_items' else '[]'::jsonb end
        ) with ordinality as a(item, n)
        where m.account_id = ${accountId} and m.transcribed_at is not null
          and jsonb_typeof(a.item) = 'object'${sql.join(conditions, sql``)}
        order by m.created_at desc, m.id desc, a.n
        limit ${query.limit + 1}`,
  );
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const items = rows.slice(0, query.limit).map((r) => ({
    task: text(r.item.task) ?? '',
    owner: text(r.item.owner),
    deadline: text(r.item.deadline),
    meetingId: r.id,
    meetingTitle: r.title,
    meetingStartedAt: new Date(Number(r.started_ms)),
    meetingCreatedAt: new Date(Number(r.created_ms)),
    position: Number(r.n),
  }));
  return { items, hasMore: rows.length > query.limit };
}
