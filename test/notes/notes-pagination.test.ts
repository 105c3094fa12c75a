import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meetings } from '../../server/db/schema';
import type { Platform } from '../../server/domain';
import { startTestApp, type TestApp } from '../support/test-app';

// GET /v1/notes ordering, pagination and filters (docs/rules.md#paging-through-notes).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

type Form = 'A' | 'B';
const FORMS: Form[] = ['A', 'B'];
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PLATFORM_CYCLE: Platform[] = ['meet', 'zoom', 'teams', 'phone', 'microphone'];

interface RefNote {
  id: string;
  createdAt: string;
  platform: Platform;
}

interface Seeded {
  key: string;
  accountId: string;
  /** The account's notes, newest first (created_at desc, id desc), computed from the database rows. */
  ref: RefNote[];
  /** Meetings recorded without a transcript (not notes). */
  pending: string[];
  sequentialFirst: string[];
  concurrent: string[];
  sequentialLast: string[];
}

/** The account's notes newest first (created_at, then id), sorted here in the test from the raw rows. */
async function referenceOrder(accountId: string): Promise<RefNote[]> {
  const rows = await app.db
    .select({
      id: meetings.id,
      createdAt: meetings.createdAt,
      platform: meetings.platform,
      transcribedAt: meetings.transcribedAt,
    })
    .from(meetings)
    .where(eq(meetings.accountId, accountId));
  return rows
    .filter((r) => r.transcribedAt !== null)
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((r) => ({ id: r.id, createdAt: r.createdAt.toISOString(), platform: r.platform }));
}

/**
 * 25 notes: 10 one after another, 10 at once (Promise.all, so several land in the same
 * millisecond unless the server keeps them apart), 5 one after another; plus 2 meetings
 * without a transcript. Platforms cycle through all five.
 */
async function seedAccount(
  form: Form = 'A',
  counts = { first: 10, concurrent: 10, last: 5 },
): Promise<Seeded> {
  const { key, account } = await app.createAccount({ form });
  let n = 0;
  const next = () => {
    const i = n++;
    return { title: `Note ${i + 1}`, platform: PLATFORM_CYCLE[i % PLATFORM_CYCLE.length]! };
  };
  const sequentialFirst: string[] = [];
  for (let i = 0; i < counts.first; i++) sequentialFirst.push(await app.recordNote(key, next()));
  const pending = [await app.recordNote(key, { ...next(), transcribe: false })];
  const batch = Array.from({ length: counts.concurrent }, () => next());
  const concurrent = await Promise.all(batch.map((opts) => app.recordNote(key, opts)));
  pending.push(await app.recordNote(key, { ...next(), transcribe: false }));
  const sequentialLast: string[] = [];
  for (let i = 0; i < counts.last; i++) sequentialLast.push(await app.recordNote(key, next()));
  return {
    key,
    accountId: account.id,
    ref: await referenceOrder(account.id),
    pending,
    sequentialFirst,
    concurrent,
    sequentialLast,
  };
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : '';
}

async function list(key: string, form: Form, params: Record<string, string | number | undefined> = {}) {
  const res = await app.request(`/v1/notes${query(params)}`, { key, form });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(Object.keys(res.json).sort()).toEqual(['data', 'has_more', 'next_cursor']);
  return res.json as { data: any[]; next_cursor: string | null; has_more: boolean };
}

/**
 * Follows next_cursor to the end and checks each page: full pages while has_more,
 * next_cursor a string exactly when has_more, the last page with next_cursor null and has_more
 * false, no empty page; in Form B next_cursor is the created_at of the page's last note, in Form A
 * it is not a timestamp.
 */
async function walk(
  key: string,
  form: Form,
  limit: number | undefined,
  filters: Record<string, string | undefined>,
  createdAtOf: Map<string, string>,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pageNo = 0; ; pageNo++) {
    expect(pageNo, 'too many pages').toBeLessThan(200);
    const page = await list(key, form, { ...filters, limit, cursor });
    const pageIds = page.data.map((n) => n.id as string);
    ids.push(...pageIds);
    if (!page.has_more) {
      expect(page.next_cursor).toBeNull();
      if (pageNo > 0) expect(page.data.length).toBeGreaterThan(0);
      expect(page.data.length).toBeLessThanOrEqual(limit ?? 20);
      return ids;
    }
    expect(page.data).toHaveLength(limit ?? 20);
    expect(page.next_cursor).toEqual(expect.any(String));
    const last = pageIds.at(-1)!;
    if (form === 'B') {
      expect(page.next_cursor).toBe(createdAtOf.get(last));
      expect(page.next_cursor).toMatch(TS);
    } else {
      expect(page.next_cursor).not.toBe(createdAtOf.get(last));
      expect(page.next_cursor).not.toMatch(/^\d{4}-\d{2}-\d{2}/);
      expect(page.next_cursor).not.toMatch(/^\d+$/);
    }
    cursor = page.next_cursor!;
  }
}

const createdAtMap = (ref: RefNote[]) => new Map(ref.map((n) => [n.id, n.createdAt]));

/** The same instant written with a +02:00 offset (inputs accept offsets). */
function withOffset(iso: string): string {
  const d = new Date(Date.parse(iso) + 2 * 3600_000);
  return d.toISOString().replace('Z', '+02:00');
}

describe('Order', () => {
  it('notes come newest first (created_at desc, id desc) in both forms', async () => {
    const s = await seedAccount('A');
    expect(s.ref).toHaveLength(25);
    // Independent of the database order: later recordings are newer.
    const refIds = s.ref.map((n) => n.id);
    expect(refIds.slice(0, 5)).toEqual([...s.sequentialLast].reverse());
    expect(new Set(refIds.slice(5, 15))).toEqual(new Set(s.concurrent));
    expect(refIds.slice(15)).toEqual([...s.sequentialFirst].reverse());

    const a = await list(s.key, 'A', { limit: 100 });
    expect(a.data.map((n) => n.id)).toEqual(refIds);
    expect(a.data.map((n) => n.created_at)).toEqual(s.ref.map((n) => n.createdAt));
    expect(a).toMatchObject({ next_cursor: null, has_more: false });

    const b = await list(s.key, 'B', { limit: 100 });
    expect(b.data.map((n) => n.id)).toEqual(refIds);
    expect(b).toMatchObject({ next_cursor: null, has_more: false });
  });

  it('the notes of one account have distinct created_at values, even when recorded at the same moment', async () => {
    const s = await seedAccount('A', { first: 2, concurrent: 20, last: 2 });
    const a = await list(s.key, 'A', { limit: 100 });
    const createdAt = a.data.map((n) => n.created_at as string);
    expect(createdAt).toHaveLength(24);
    expect(new Set(createdAt).size).toBe(24);
    for (const t of createdAt) expect(t).toMatch(TS);
    // Strictly descending, since they are distinct.
    const ms = createdAt.map((t) => Date.parse(t));
    for (let i = 1; i < ms.length; i++) expect(ms[i]!).toBeLessThan(ms[i - 1]!);
    // Also the meetings without a transcript do not share a created_at with a note.
    const rows = await app.db
      .select({ createdAt: meetings.createdAt })
      .from(meetings)
      .where(eq(meetings.accountId, s.accountId));
    expect(rows).toHaveLength(26);
    expect(new Set(rows.map((r) => r.createdAt.getTime())).size).toBe(26);
  });
});

describe('Walking pages', () => {
  it.each(FORMS)(
    'Form %s pages of limit 1, 2, 3 and 7 yield every note exactly once, in order',
    async (form) => {
      const s = await seedAccount(form);
      const refIds = s.ref.map((n) => n.id);
      for (const limit of [1, 2, 3, 7]) {
        const ids = await walk(s.key, form, limit, {}, createdAtMap(s.ref));
        expect(ids, `limit ${limit}`).toEqual(refIds);
        expect(new Set(ids).size).toBe(25);
      }
    },
  );

  it.each(FORMS)(
    'Form %s default limit is 20; the last page has next_cursor null and has_more false',
    async (form) => {
      const s = await seedAccount(form);
      const first = await list(s.key, form);
      expect(first.data.map((n) => n.id)).toEqual(s.ref.slice(0, 20).map((n) => n.id));
      expect(first.has_more).toBe(true);
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await list(s.key, form, { cursor: first.next_cursor! });
      expect(second.data.map((n) => n.id)).toEqual(s.ref.slice(20).map((n) => n.id));
      expect(second).toMatchObject({ next_cursor: null, has_more: false });
    },
  );

  it('a page that ends exactly on the last note reports next_cursor null and has_more false', async () => {
    const s = await seedAccount('A', { first: 3, concurrent: 0, last: 3 });
    for (const form of FORMS) {
      const page = await list(s.key, form, { limit: 6 });
      expect(page.data).toHaveLength(6);
      expect(page).toMatchObject({ next_cursor: null, has_more: false });
      const first = await list(s.key, form, { limit: 3 });
      expect(first.has_more).toBe(true);
      const second = await list(s.key, form, { limit: 3, cursor: first.next_cursor! });
      expect(second.data.map((n) => n.id)).toEqual(s.ref.slice(3).map((n) => n.id));
      expect(second).toMatchObject({ next_cursor: null, has_more: false });
    }
  });

  it('an account without notes gets an empty last page', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    await app.recordNote(key, { transcribe: false });
    for (const form of FORMS) {
      expect(await list(key, form)).toEqual({ data: [], next_cursor: null, has_more: false });
    }
  });

  it('limit 100 is honoured in both forms and limit 101 is refused (Form A 422, Form B 400)', async () => {
    const s = await seedAccount('A', { first: 1, concurrent: 0, last: 0 });
    // 100 more notes, ten at a time.
    for (let i = 0; i < 10; i++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          app.recordNote(s.key, { title: `Bulk ${i * 10 + j}`, platform: 'zoom' }),
        ),
      );
    }
    const ref = await referenceOrder(s.accountId);
    expect(ref).toHaveLength(101);
    for (const form of FORMS) {
      const first = await list(s.key, form, { limit: 100 });
      expect(first.data.map((n) => n.id)).toEqual(ref.slice(0, 100).map((n) => n.id));
      expect(first.has_more).toBe(true);
      const second = await list(s.key, form, { limit: 100, cursor: first.next_cursor! });
      expect(second.data.map((n) => n.id)).toEqual([ref[100]!.id]);
      expect(second).toMatchObject({ next_cursor: null, has_more: false });
    }
    const a = await app.request('/v1/notes?limit=101', { key: s.key, form: 'A' });
    expect(a.status).toBe(422);
    expect(a.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(a.json).toEqual({ error: { code: 'validation_error', message: expect.any(String) } });
    const b = await app.request('/v1/notes?limit=101', { key: s.key, form: 'B' });
    expect(b.status).toBe(400);
    expect(b.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(b.json).toEqual({ error: expect.any(String) });
  });

  it('the Form A cursor is opaque, not a timestamp', async () => {
    const s = await seedAccount('A', { first: 4, concurrent: 0, last: 0 });
    const page = await list(s.key, 'A', { limit: 2 });
    expect(page.has_more).toBe(true);
    const cursor = page.next_cursor!;
    expect(cursor).toEqual(expect.any(String));
    expect(cursor).not.toBe(page.data[1].created_at);
    expect(cursor).not.toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(cursor).not.toMatch(/^\d+$/);
    expect(cursor).not.toContain(':');
  });

  it('the Form B next_cursor is the created_at of the last note on the page, as a UTC timestamp with milliseconds', async () => {
    const s = await seedAccount('B', { first: 3, concurrent: 4, last: 0 });
    let cursor: string | undefined;
    for (let i = 0; i < 3; i++) {
      const page = await list(s.key, 'B', { limit: 2, cursor });
      expect(page.has_more).toBe(true);
      const lastId = page.data[1].id;
      expect(page.next_cursor).toBe(s.ref.find((n) => n.id === lastId)!.createdAt);
      expect(page.next_cursor).toMatch(TS);
      cursor = page.next_cursor!;
    }
    const last = await list(s.key, 'B', { limit: 2, cursor });
    expect(last.data.map((n) => n.id)).toEqual([s.ref[6]!.id]);
    expect(last).toMatchObject({ next_cursor: null, has_more: false });
  });
});

describe('Filters', () => {
  it.each(FORMS)('created_after is an inclusive lower bound in Form %s', async (form) => {
    const s = await seedAccount(form);
    const pivot = s.ref[10]!;
    const expected = s.ref.slice(0, 11).map((n) => n.id);
    for (const bound of [pivot.createdAt, withOffset(pivot.createdAt)]) {
      const page = await list(s.key, form, { created_after: bound, limit: 100 });
      expect(
        page.data.map((n) => n.id),
        bound,
      ).toEqual(expected);
      expect(page).toMatchObject({ next_cursor: null, has_more: false });
    }
  });

  it('created_before is an exclusive upper bound in Form A', async () => {
    const s = await seedAccount('A');
    const pivot = s.ref[10]!;
    const expected = s.ref.slice(11).map((n) => n.id);
    for (const bound of [pivot.createdAt, withOffset(pivot.createdAt)]) {
      const page = await list(s.key, 'A', { created_before: bound, limit: 100 });
      expect(
        page.data.map((n) => n.id),
        bound,
      ).toEqual(expected);
      expect(page.data.map((n) => n.id)).not.toContain(pivot.id);
    }
  });

  it('created_before is an inclusive upper bound in Form B', async () => {
    const s = await seedAccount('B');
    const pivot = s.ref[10]!;
    const expected = s.ref.slice(10).map((n) => n.id);
    for (const bound of [pivot.createdAt, withOffset(pivot.createdAt)]) {
      const page = await list(s.key, 'B', { created_before: bound, limit: 100 });
      expect(
        page.data.map((n) => n.id),
        bound,
      ).toEqual(expected);
      expect(page.data[0].id).toBe(pivot.id);
    }
  });

  it('created_after and created_before together bound a window (A: [after, before), B: [after, before])', async () => {
    const s = await seedAccount('A');
    const newer = s.ref[5]!;
    const older = s.ref[15]!;
    const params = { created_after: older.createdAt, created_before: newer.createdAt, limit: 100 };
    expect((await list(s.key, 'A', params)).data.map((n) => n.id)).toEqual(
      s.ref.slice(6, 16).map((n) => n.id),
    );
    expect((await list(s.key, 'B', params)).data.map((n) => n.id)).toEqual(
      s.ref.slice(5, 16).map((n) => n.id),
    );
    // A one-instant window: empty in Form A, the note itself in Form B.
    const one = { created_after: newer.createdAt, created_before: newer.createdAt };
    expect((await list(s.key, 'A', one)).data).toEqual([]);
    expect((await list(s.key, 'B', one)).data.map((n) => n.id)).toEqual([newer.id]);
  });

  it('Form A platform=microphone lists only microphone notes, and platform=phone only phone notes', async () => {
    const s = await seedAccount('A');
    for (const platform of PLATFORM_CYCLE) {
      const page = await list(s.key, 'A', { platform, limit: 100 });
      const expected = s.ref.filter((n) => n.platform === platform).map((n) => n.id);
      expect(expected.length).toBe(5);
      expect(
        page.data.map((n) => n.id),
        platform,
      ).toEqual(expected);
      for (const note of page.data) expect(note.platform).toBe(platform);
    }
  });

  it('Form B platform=phone includes microphone notes (shown as phone); other platforms filter exactly', async () => {
    const s = await seedAccount('B');
    const phone = await list(s.key, 'B', { platform: 'phone', limit: 100 });
    const expected = s.ref
      .filter((n) => n.platform === 'phone' || n.platform === 'microphone')
      .map((n) => n.id);
    expect(expected).toHaveLength(10);
    expect(phone.data.map((n) => n.id)).toEqual(expected);
    for (const note of phone.data) expect(note.platform).toBe('phone');
    for (const platform of ['meet', 'zoom', 'teams'] as const) {
      const page = await list(s.key, 'B', { platform, limit: 100 });
      expect(
        page.data.map((n) => n.id),
        platform,
      ).toEqual(s.ref.filter((n) => n.platform === platform).map((n) => n.id));
    }
    // microphone is not in Form B's enum (400 in Form B).
    const mic = await app.request('/v1/notes?platform=microphone', { key: s.key, form: 'B' });
    expect(mic.status).toBe(400);
    expect(mic.json).toEqual({ error: expect.any(String) });
  });

  it.each(FORMS)(
    'in Form %s filters combine with a cursor: walking a filtered list yields exactly the filtered notes',
    async (form) => {
      const s = await seedAccount(form);
      const createdAt = createdAtMap(s.ref);
      const after = s.ref[22]!.createdAt;
      const before = s.ref[2]!.createdAt;
      const inWindow = (i: number) => i <= 22 && (form === 'B' ? i >= 2 : i > 2);
      const cases: { filters: Record<string, string>; expected: string[] }[] = [
        {
          filters: { platform: 'phone' },
          expected: s.ref
            .filter((n) => n.platform === 'phone' || (form === 'B' && n.platform === 'microphone'))
            .map((n) => n.id),
        },
        {
          filters: { created_after: after, created_before: before },
          expected: s.ref.filter((_, i) => inWindow(i)).map((n) => n.id),
        },
        {
          filters: { platform: 'zoom', created_after: after, created_before: before },
          expected: s.ref.filter((n, i) => inWindow(i) && n.platform === 'zoom').map((n) => n.id),
        },
      ];
      for (const { filters, expected } of cases) {
        expect(expected.length).toBeGreaterThan(2);
        for (const limit of [1, 2, 3]) {
          const ids = await walk(s.key, form, limit, filters, createdAt);
          expect(ids, `${JSON.stringify(filters)} limit ${limit}`).toEqual(expected);
        }
      }
    },
  );
});

describe('Which notes are listed', () => {
  it('a meeting without a transcript is never listed, in either form, with or without filters', async () => {
    const s = await seedAccount('A');
    const pendingRows = await app.db
      .select({ id: meetings.id, createdAt: meetings.createdAt })
      .from(meetings)
      .where(eq(meetings.accountId, s.accountId));
    const pendingSet = new Set(s.pending);
    const pendingTimes = pendingRows
      .filter((r) => pendingSet.has(r.id))
      .map((r) => r.createdAt.toISOString());
    expect(pendingTimes).toHaveLength(2);
    for (const form of FORMS) {
      const all = await walk(s.key, form, 4, {}, createdAtMap(s.ref));
      expect(all).toHaveLength(25);
      for (const id of s.pending) expect(all).not.toContain(id);
      for (const t of pendingTimes) {
        // A window around exactly the pending meeting's created_at.
        const page = await list(s.key, form, { created_after: t, created_before: t, limit: 100 });
        expect(page.data).toEqual([]);
        const from = await list(s.key, form, { created_after: t, limit: 100 });
        for (const id of s.pending) expect(from.data.map((n) => n.id)).not.toContain(id);
      }
    }
  });

  it('notes of other accounts never appear in a list, with or without filters and cursors', async () => {
    const mine = await seedAccount('A', { first: 4, concurrent: 6, last: 2 });
    const theirs = await seedAccount('A', { first: 4, concurrent: 6, last: 2 });
    const theirIds = new Set(theirs.ref.map((n) => n.id));
    for (const form of FORMS) {
      for (const filters of [{}, { platform: 'zoom' }, { created_after: mine.ref[6]!.createdAt }]) {
        const ids = await walk(mine.key, form, 3, filters, createdAtMap(mine.ref));
        for (const id of ids) expect(theirIds.has(id)).toBe(false);
        expect(ids.every((id) => mine.ref.some((n) => n.id === id))).toBe(true);
      }
      // A cursor made from the other account's page leads only to own notes.
      const theirPage = await list(theirs.key, form, { limit: 2 });
      const page = await list(mine.key, form, { limit: 100, cursor: theirPage.next_cursor! });
      for (const note of page.data) expect(theirIds.has(note.id)).toBe(false);
    }
  });
});
