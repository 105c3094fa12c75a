import { type SQL, sql } from 'drizzle-orm';
import type { Platform } from '../domain';

/**
 * What a search may be narrowed to (docs/rules.md#search), in form-neutral terms: the list's
 * filters on the note (its platform and when it was created) and who spoke.
 */
export interface SearchFilters {
  platforms?: Platform[];
  createdFrom?: Date;
  createdBefore?: { at: Date; inclusive: boolean };
  /** A speaker's name, matched whole and without regard to case. */
  speaker?: string;
}

/** The filters on the meeting `m`, as conditions to AND to a search's WHERE (empty without filters). */
export function meetingConditions(filters: SearchFilters): SQL {
  const parts: SQL[] = [];
  if (filters.platforms)
    parts.push(
      sql` and m.platform in (${sql.join(
        filters.platforms.map((p) => sql`${p}`),
        sql`, `,
      )})`,
    );
  if (filters.createdFrom)
    parts.push(sql` and m.created_at >= ${filters.createdFrom.toISOString()}::timestamptz`);
  if (filters.createdBefore) {
    const at = sql`${filters.createdBefore.at.toISOString()}::timestamptz`;
    parts.push(
      filters.createdBefore.inclusive ? sql` and m.created_at <= ${at}` : sql` and m.created_at < ${at}`,
    );
  }
  return sql.join(parts, sql``);
}

/** Whether a segment's speaker is the one asked for: the whole name, case aside. */
export const sameSpeaker = (speaker: string, wanted: string) =>
  speaker.toLowerCase() === wanted.toLowerCase();
