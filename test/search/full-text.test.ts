import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, queryRows } from '../../server/db/client';
import {
  blendedScore,
  hasWords,
  TEXT_SEARCH_CONFIGS,
  textSearchConfig,
  WORD_MATCH_WEIGHT,
} from '../../server/search/text-search';
import { openDatabaseBefore } from '../support/older-database';
import { startTestApp, type TestApp } from '../support/test-app';

// Hybrid search: passages are found by meaning and by PostgreSQL's full-text search of their
// words, read in their meeting's language, and a passage holding the query's words ranks higher.

describe('the blended score', () => {
  it('keeps the cosine similarity of a passage without the query’s words, and raises one holding them toward 1', () => {
    expect(blendedScore(0.4, 0)).toBe(0.4);
    expect(blendedScore(0.4, 1)).toBeCloseTo(0.4 + 0.6 * WORD_MATCH_WEIGHT);
    // Squared: a passage holding a third of the words gains a ninth of the full gain.
    expect(blendedScore(0.4, 1 / 3) - 0.4).toBeCloseTo((0.6 * WORD_MATCH_WEIGHT) / 9);
    // Passages holding every word keep their order by cosine.
    expect(blendedScore(0.5, 1)).toBeGreaterThan(blendedScore(0.45, 1));
    expect(blendedScore(0.9, 1)).toBeLessThan(1);
  });

  it('reads a meeting’s language as PostgreSQL’s configuration, and any other as simple', () => {
    expect(textSearchConfig('en')).toBe('english');
    expect(textSearchConfig('fr-CA')).toBe('french');
    expect(textSearchConfig('pt_BR')).toBe('portuguese');
    expect(textSearchConfig('nb')).toBe('norwegian');
    expect(textSearchConfig('ja')).toBe('simple');
    expect(textSearchConfig('')).toBe('simple');
    expect(hasWords('release "date" -mobile?')).toBe(true);
    expect(hasWords('?! …')).toBe(false);
  });
});

describe('full-text search over passages', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('stores every passage’s words in its meeting’s language, and finds them by another form of the word', async () => {
    const { key } = await app.createAccount();
    const french = await app.recordNote(key, {
      title: 'Course à pied',
      language: 'fr',
      segments: [
        { speaker: 'Léa', content: 'Les coureuses couraient autour du lac chaque matin.', start_time: 0 },
      ],
    });
    const english = await app.recordNote(key, {
      title: 'Runners',
      language: 'en-GB',
      segments: [{ speaker: 'Ana', content: 'The runners were running around the lake.', start_time: 0 }],
    });
    const rows = await queryRows<{ meeting_id: string; text_search_config: string; words: string }>(
      app.db,
      sql`select meeting_id, text_search_config, search_vector::text as words from passages
          where meeting_id in (${french}, ${english}) order by text_search_config`,
    );
    expect(rows.map((r) => [r.meeting_id, r.text_search_config])).toEqual([
      [english, 'english'],
      [french, 'french'],
    ]);
    expect(rows[0]!.words).toContain("'run'");
    expect(rows[1]!.words).toContain("'coureux'");
    // The English stem reached through full-text search: "run" finds "runners were running".
    const res = await app.request('/v1/notes/search?q=run&limit=5', { key });
    expect(res.status).toBe(200);
    expect(res.json.data[0].note_id).toBe(english);
  });

  it('ranks first the passage that holds every word of a keyword query, its score above its cosine similarity', async () => {
    const { key } = await app.createAccount();
    const target = await app.recordNote(key, {
      title: 'Warehouse',
      segments: [
        {
          speaker: 'Ana',
          content: 'The forklift battery charging moves to the night shift from Monday.',
          start_time: 0,
        },
      ],
    });
    for (const content of [
      'Battery life of the scanners is poor; we order new ones.',
      'The night shift asked for a second forklift driver.',
      'Charging stations in the car park are free for staff.',
    ])
      await app.recordNote(key, { title: 'Other', segments: [{ speaker: 'Ben', content, start_time: 0 }] });
    const res = await app.request('/v1/notes/search?q=forklift+battery+charging+night+shift&limit=4', {
      key,
    });
    expect(res.status).toBe(200);
    expect(res.json.data[0].note_id).toBe(target);
    const [cosine] = await queryRows<{ similarity: number }>(
      app.db,
      sql`select 1 - (embedding <=> ${`[${(await app.services.embedder.embed(['forklift battery charging night shift']))[0]!.join(',')}]`}::vector) as similarity
          from passages where meeting_id = ${target}`,
    );
    expect(res.json.data[0].score).toBeCloseTo(blendedScore(Number(cosine!.similarity), 1), 5);
  });
});

describe('full-text search over summaries (Form B)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  const summary = (context: string, decision: string) => ({
    context,
    decisions: [decision],
    action_items: [{ task: 'Write it down', owner: 'Ana', deadline: null }],
    participants: ['Ana', 'Ben'],
    next_step: null,
    budget_mentioned: null,
    sentiment: 'positive',
  });

  it('stores each summary’s words in its meeting’s language, and ranks first the note whose summary holds every word of the query', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const target = await app.recordNote(key, {
      language: 'en',
      summary: summary(
        'The warehouse team planned forklift battery charging.',
        'Charge forklifts on the night shift',
      ),
    });
    await app.recordNote(key, {
      language: 'en',
      summary: summary('Scanner batteries wear out quickly.', 'Order new scanner batteries'),
    });
    await app.recordNote(key, {
      language: 'en',
      summary: summary('The night shift needs another driver.', 'Hire a second forklift driver'),
    });
    const [row] = await queryRows<{ summary_search_config: string; words: string }>(
      app.db,
      sql`select summary_search_config, summary_search_vector::text as words from meetings where id = ${target}`,
    );
    expect(row).toEqual({ summary_search_config: 'english', words: expect.stringContaining("'forklift'") });
    expect(row!.words).not.toContain("'posit'");
    const res = await app.request('/v1/notes/search?q=forklift+battery+charging+night+shift&limit=3', {
      key,
      form: 'B',
    });
    expect(res.status).toBe(200);
    expect(res.json.data[0].id).toBe(target);
  });
});

describe('migration 0018', () => {
  it('reads the passages stored before it in their meetings’ languages, so that they are found by their words at once', async () => {
    const database = await openDatabaseBefore(18);
    try {
      const account = '6f1c2a52-8e0b-4b55-9a39-3c1f1c0f0018';
      await database.db.execute(sql`insert into accounts (id, email) values (${account}, 'old@example.com')`);
      for (const [id, language, text] of [
        ['7a000000-0000-4000-8000-000000000181', 'de', 'Die Häuser wurden renoviert.'],
        ['7a000000-0000-4000-8000-000000000182', 'xx', 'Plain words here.'],
      ] as const) {
        await database.db.execute(
          sql`insert into meetings (id, account_id, platform, language, started_at, created_at)
              values (${id}, ${account}, 'zoom', ${language}, now(), now())`,
        );
        await database.db.execute(
          sql`insert into passages (id, meeting_id, account_id, position, text, first_sequence, last_sequence, model)
              values (gen_random_uuid(), ${id}, ${account}, 0, ${text}, 0, 0, 'local-v1')`,
        );
      }
      await migrateDatabase(database);
      const rows = await queryRows<{ text_search_config: string; words: string }>(
        database.db,
        sql`select text_search_config, search_vector::text as words from passages order by text_search_config`,
      );
      expect(rows).toEqual([
        { text_search_config: 'german', words: expect.stringContaining("'haus'") },
        { text_search_config: 'simple', words: expect.stringContaining("'plain'") },
      ]);
      // Every configuration the service stores passages in exists in this PostgreSQL.
      const configs = await queryRows<{ cfgname: string }>(
        database.db,
        sql`select cfgname from pg_ts_config where cfgname in (${sql.join(
          TEXT_SEARCH_CONFIGS.map((c) => sql`${c}`),
          sql`, `,
        )})`,
      );
      expect(configs).toHaveLength(TEXT_SEARCH_CONFIGS.length);
    } finally {
      await database.close();
    }
  });
});

describe('migration 0019', () => {
  it('reads the summaries stored before it in their meetings’ languages: every string of the summary but its sentiment, and the summary text', async () => {
    const database = await openDatabaseBefore(19);
    try {
      const account = '6f1c2a52-8e0b-4b55-9a39-3c1f1c0f0019';
      const id = '7a000000-0000-4000-8000-000000000191';
      await database.db.execute(
        sql`insert into accounts (id, email) values (${account}, 'older@example.com')`,
      );
      await database.db.execute(
        sql`insert into meetings (id, account_id, platform, language, started_at, created_at, summary, summary_text)
            values (${id}, ${account}, 'zoom', 'fr', now(), now(),
                    ${JSON.stringify({ context: 'Les coureurs', decisions: ['Acheter des chaussures'], action_items: [], participants: ['Léa'], next_step: null, budget_mentioned: null, sentiment: 'enthousiaste' })}::jsonb,
                    'Réunion des entraîneurs')`,
      );
      await migrateDatabase(database);
      const [row] = await queryRows<{ summary_search_config: string; words: string }>(
        database.db,
        sql`select summary_search_config, summary_search_vector::text as words from meetings where id = ${id}`,
      );
      expect(row!.summary_search_config).toBe('french');
      for (const word of ["'coureur'", "'chaussur'", "'entraîneur'"]) expect(row!.words).toContain(word);
      expect(row!.words).not.toContain('enthousiast');
    } finally {
      await database.close();
    }
  });
});
