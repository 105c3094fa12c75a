import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrateDatabase, queryRows } from '../../server/db/client';
import { openDatabaseBefore } from '../support/older-database';

// A database of the release before link messages were kept without their text still holds
// verification and reset links that the Account page used to show. Upgrading removes the text of
// those messages, keeps every other message as it was, and proves no mailbox: operators from
// before prove their address once.

describe('upgrading a database that kept link messages in full', () => {
  it('removes the text of verification and reset messages, keeps notices, and proves no mailbox', async () => {
    const database = await openDatabaseBefore(12);
    try {
      const account = '6f1c2a52-8e0b-4b55-9a39-3c1f1c0f0012';
      await database.db.execute(
        sql`insert into accounts (id, email, email_verified_at) values (${account}, 'old@example.com', now())`,
      );
      const message = (id: number, subject: string, body: string) =>
        sql`insert into emails (id, account_id, "to", subject, body, transport, created_at)
            values (${`6f1c2a52-8e0b-4b55-9a39-3c1f1c0f100${id}`}, ${account}, 'old@example.com', ${subject}, ${body}, 'log', now())`;
      await database.db.execute(
        message(
          1,
          'Welcome to Meeting Notes',
          'Open http://localhost:3000/verify-email?token=abc to confirm',
        ),
      );
      await database.db.execute(
        message(2, 'Reset your Meeting Notes password', 'https://notes.example/reset-password?token=def'),
      );
      await database.db.execute(
        message(3, 'Webhook endpoint disabled', 'See http://localhost:3000/webhooks/1 for details'),
      );
      await migrateDatabase(database);
      const rows = await queryRows<{ subject: string; body: string | null }>(
        database.db,
        sql`select subject, body from emails order by id`,
      );
      expect(rows).toEqual([
        { subject: 'Welcome to Meeting Notes', body: null },
        { subject: 'Reset your Meeting Notes password', body: null },
        { subject: 'Webhook endpoint disabled', body: 'See http://localhost:3000/webhooks/1 for details' },
      ]);
      const [proof] = await queryRows<{ mailbox_proven_at: unknown }>(
        database.db,
        sql`select mailbox_proven_at from accounts where id = ${account}`,
      );
      expect(proof!.mailbox_proven_at).toBeNull();
    } finally {
      await database.close();
    }
  });
});
