import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrateDatabase, queryRows } from '../../server/db/client';
import { PASSAGE_PARTITIONS } from '../../server/db/schema';
import { openDatabaseBefore } from '../support/older-database';

// Migration 0011 moves `passages` into a table hash-partitioned by account. A database of the
// previous release (migrations 0000–0010, standing in as a folder holding only those) keeps every
// passage, byte for byte, and its constraints; searches then read one partition.

const ACCOUNTS = ['6f1c2a52-8e0b-4b55-9a39-3c1f1c0f0001', '6f1c2a52-8e0b-4b55-9a39-3c1f1c0f0002'];
const MEETINGS = ['7a000000-0000-4000-8000-000000000001', '7a000000-0000-4000-8000-000000000002'];
const vector = (seed: number, dims: number) =>
  `[${Array.from({ length: dims }, (_, i) => (((i * 7 + seed * 13) % 17) - 8) / 8).join(',')}]`;

describe('migration 0011', () => {
  it('passages from before migration 0011 survive it unchanged in a table partitioned by account, whose keys and cascades still hold', async () => {
    const database = await openDatabaseBefore(11);
    try {
      // A database that had moved to another dimension keeps it (LIKE copies the column type).
      await database.db.execute(sql.raw('drop index passages_embedding_hnsw'));
      await database.db.execute(
        sql.raw('alter table passages alter column embedding type vector(8) using null'),
      );
      for (const [i, account] of ACCOUNTS.entries()) {
        await database.db.execute(
          sql`insert into accounts (id, email) values (${account}, ${`owner${i}@example.com`})`,
        );
        await database.db.execute(
          sql`insert into meetings (id, account_id, platform, started_at, created_at)
              values (${MEETINGS[i]}, ${account}, 'zoom', now(), now())`,
        );
      }
      for (let n = 0; n < 6; n++) {
        const a = n % 2;
        await database.db.execute(
          sql`insert into passages (id, meeting_id, account_id, position, text, first_sequence, last_sequence, embedding, segment_embeddings, model)
              values (${`8b000000-0000-4000-8000-00000000000${n}`}, ${MEETINGS[a]}, ${ACCOUNTS[a]}, ${n}, ${`passage ${n} ’ü`},
                      ${n}, ${n + 1}, ${vector(n, 8)}::vector, ${Buffer.from([n, 255, 0])}, 'local-v1')`,
        );
      }
      const read = () =>
        queryRows<Record<string, unknown>>(
          database.db,
          sql`select id, meeting_id, account_id, position, text, first_sequence, last_sequence, embedding::text as embedding,
                     encode(segment_embeddings, 'hex') as segment_embeddings, model from passages order by id`,
        );
      const was = await read();
      expect(was).toHaveLength(6);

      await migrateDatabase(database);

      expect(await read()).toEqual(was);
      const [kind] = await queryRows<{ relkind: string; dims: number }>(
        database.db,
        sql`select c.relkind, a.atttypmod as dims from pg_class c join pg_attribute a on a.attrelid = c.oid
            where c.relname = 'passages' and a.attname = 'embedding'`,
      );
      expect(kind).toEqual({ relkind: 'p', dims: 8 });
      const parts = await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from pg_inherits where inhparent = 'passages'::regclass`,
      );
      expect(parts[0]!.n).toBe(PASSAGE_PARTITIONS);
      // Each account's rows sit in one partition.
      const homes = await queryRows<{ account_id: string; partitions: number }>(
        database.db,
        sql`select account_id, count(distinct tableoid)::int as partitions from passages group by 1`,
      );
      expect(homes.map((h) => h.partitions)).toEqual([1, 1]);
      const indexes = await queryRows<{ name: string }>(
        database.db,
        sql`select indexname as name from pg_indexes where tablename = 'passages' order by 1`,
      );
      expect(indexes.map((i) => i.name)).toEqual([
        'passages_account_idx',
        'passages_embedding_hnsw',
        'passages_id_account_id_pk',
        'passages_meeting_position_key',
        // Added by a later migration (full-text search).
        'passages_search_vector_gin',
      ]);

      // (meeting, position) is still unique; an unknown meeting is still refused.
      await expect(
        database.db.execute(
          sql`insert into passages (id, meeting_id, account_id, position, text, first_sequence, last_sequence, model)
              values ('8b000000-0000-4000-8000-0000000000aa', ${MEETINGS[0]}, ${ACCOUNTS[0]}, 0, 'again', 0, 1, 'm')`,
        ),
      ).rejects.toMatchObject({ cause: { code: '23505' } }); // unique_violation
      await expect(
        database.db.execute(
          sql`insert into passages (id, meeting_id, account_id, position, text, first_sequence, last_sequence, model)
              values ('8b000000-0000-4000-8000-0000000000ab', '7a000000-0000-4000-8000-0000000000ff', ${ACCOUNTS[0]}, 0, 'orphan', 0, 1, 'm')`,
        ),
      ).rejects.toMatchObject({ cause: { code: '23503', constraint: 'passages_meeting_id_meetings_id_fk' } });
      // Deleting a meeting still takes its passages; deleting an account, its meetings' too.
      await database.db.execute(sql`delete from meetings where id = ${MEETINGS[0]}`);
      await database.db.execute(sql`delete from accounts where id = ${ACCOUNTS[1]}`);
      expect(await read()).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
