import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite, PGLITE_SHARED_BUFFERS, queryRows } from './client';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database (PGlite)', () => {
  it('runs with 16 MB of shared buffers (not initdb’s 128 MB, all of it resident from the start), and keeps what it wrote across a reopen', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-pglite-'));
    dirs.push(dir);
    const first = await openPglite(dir);
    try {
      const rows = await queryRows<{ shared_buffers: string }>(first.db, sql`show shared_buffers`);
      expect(PGLITE_SHARED_BUFFERS).toBe('16MB');
      expect(rows[0]?.shared_buffers).toBe('16MB');
      await first.db.execute(sql`create table kept (v text)`);
      await first.db.execute(sql`insert into kept values ('still here')`);
    } finally {
      await first.close();
    }
    const second = await openPglite(dir);
    try {
      const rows = await queryRows<{ v: string }>(second.db, sql`select v from kept`);
      expect(rows.map((r) => r.v)).toEqual(['still here']);
    } finally {
      await second.close();
    }
  });
});
