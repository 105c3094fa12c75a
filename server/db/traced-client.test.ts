import { describe, expect, it } from 'vitest';
import { summarizeStatement } from './traced-client';

// What a SQL span says of its statement: the operation and the tables, read from the text with
// its literals removed, so that no value reaches a span.

describe('summarizeStatement', () => {
  it.each([
    [
      `select "id", "title" from "meetings" where "meetings"."account_id" = $1`,
      'SELECT',
      'meetings',
      ['meetings'],
    ],
    [`insert into "jobs" ("id", "kind") values ($1, $2)`, 'INSERT', 'jobs', ['jobs']],
    [`update "jobs" set "due_at" = $1 where "jobs"."id" = $2`, 'UPDATE', 'jobs', ['jobs']],
    [`delete from "jobs" where "jobs"."id" = $1`, 'DELETE', 'jobs', ['jobs']],
    [
      `with claimed as (update deliveries set locked_until = now() where id in (select id from deliveries
         where status = 'pending' limit 5 for update skip locked) returning id)
       select c.*, e.url from claimed c join webhook_endpoints e on e.id = c.endpoint_id`,
      'UPDATE',
      'deliveries',
      ['deliveries', 'webhook_endpoints'],
    ],
    [
      `insert into rate_limit_counters (k) values ($1) on conflict (k) do update set n = rate_limit_counters.n + 1`,
      'INSERT',
      'rate_limit_counters',
      ['rate_limit_counters'],
    ],
    [`select * from jsonb_to_recordset($1::jsonb) as x(id uuid)`, 'SELECT', undefined, []],
  ])('%s', (text, operation, collection, tables) => {
    expect(summarizeStatement(text)).toEqual({ operation, collection, tables });
  });

  it('a literal never becomes a table name', () => {
    const summary = summarizeStatement(`select 1 from notes where title = 'from secret_table join x'`);
    expect(summary.tables).toEqual(['notes']);
  });
});
