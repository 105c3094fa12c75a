import { describe, expect, it } from 'vitest';
import { LocalEmbedder, embedLocal, lexicalScorer, lexicalSimilarity, tokenize } from './local-embedder';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));
const cos = (a: string, b: string, d = 384) => dot(embedLocal(a, d), embedLocal(b, d));

// Twenty passages of the kind the recorder stores: several speakers, fillers, numbers, names.
const PASSAGES = [
  "Priya: Okay so the main thing today is the Q3 budget. We're about 40k over on cloud spend, mostly the GPU instances we spun up for the pilot. Marcus: Can we move some of that into the R&D line?",
  'Marcus: The database failover test on Tuesday went badly. The replica took nine minutes to promote and the app kept writing to the old primary. We need automatic failovers before the launch.',
  'Lena: For the hiring plan, we have two open backend roles and one designer. Recruiting says the pipeline is thin, so maybe we should raise the referral bonus to 3000 euros.',
  "Sam: The customer onboarding flow has a drop-off at the email verification step. About 30 percent never click the link. Let's try a magic code instead of a link and measure for two weeks.",
  'Priya: Quick update on the mobile release. iOS 4.2 is in review, Android shipped yesterday. Crash rate is down to 0.3 percent after the image cache fix.',
  'Jonas: Security review of the webhook signing. We sign with HMAC SHA-256 and include a timestamp to stop replay attacks. Rotating secrets still needs a grace period where both keys are valid.',
  'Aisha: Marketing wants the pricing page redesigned before the conference in May. The enterprise tier should say contact sales, and annual billing gets a 20 percent discount.',
  "Tom: The support backlog is at 450 tickets. Half are password reset problems, which should go away once single sign-on lands. I'd like two more people on the queue until then.",
  'Lena: Retro for the sprint. Good: we finished the search indexing work. Bad: too many meetings, and the staging environment was broken for three days. Action: fix staging alerts.',
  'Marcus: Vendor contract renewal for the observability platform. They want a 15 percent increase. I think we can negotiate with a two year commitment or look at the open source alternatives.',
  'Sam: Legal flagged the data retention policy. We keep raw audio for ninety days but the privacy notice says thirty. Either we shorten retention or update the notice before the audit.',
  'Priya: The roadmap for next quarter: offline mode, shared workspaces and the calendar integration. Calendar integration is the one customers ask about most in the interviews.',
  'Jonas: Kubernetes upgrade to 1.30 is scheduled for the weekend. We will drain the nodes one by one; the rollback plan is to keep the old node pool around for 48 hours.',
  'Aisha: Customer interview summary. Users love the automatic summaries but complain that action items are assigned to the wrong person when two people share a first name.',
  'Tom: Office move. The new lease starts in September, movers are booked for the last week of August, and IT needs to set up the network closet a week before.',
  'Lena: Performance review season starts next month. Managers should write self assessments first, then calibration sessions per team, and final ratings are due by the fifteenth.',
  "Marcus: Incident postmortem for the outage on Friday. Root cause was an expired TLS certificate on the load balancer. We'll automate renewal and add an alert thirty days before expiry.",
  'Sam: Analytics dashboard numbers look off. Weekly active users doubled overnight, which turned out to be a bot hitting the signup page. We should filter bots in the tracking pipeline.',
  'Priya: Partnership with the CRM vendor. They offered a co-marketing deal and an integration listing in their marketplace if we ship the connector by the end of the quarter.',
  'Jonas: Cost of the transcription service. We pay per audio minute; switching to batch processing at night would cut the bill by roughly a third, with results ready the next morning.',
];

const rank = (query: string) =>
  PASSAGES.map((p, i) => ({ i, score: cos(query, p) })).sort((a, b) => b.score - a.score);

describe('LocalEmbedder', () => {
  it('names its model and honours the dimension', async () => {
    for (const dimensions of [64, 384, 768]) {
      const e = new LocalEmbedder({ dimensions });
      expect(e.model).toBe('local-lexical-v1');
      expect(e.dimensions).toBe(dimensions);
      const [v] = await e.embed(['The database failover test went badly.']);
      expect(v).toHaveLength(dimensions);
    }
    expect(new LocalEmbedder({}).dimensions).toBe(384);
  });

  it('rejects a dimension that is not a positive integer', () => {
    for (const dimensions of [0, -1, 1.5, Number.NaN]) {
      expect(() => new LocalEmbedder({ dimensions })).toThrow(/dimensions must be an integer/);
    }
  });

  it('is deterministic: the same text gives the identical vector, across instances', async () => {
    const text = PASSAGES[1]!;
    const [a] = await new LocalEmbedder({}).embed([text]);
    const [b, c] = await new LocalEmbedder({}).embed([text, text]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('returns unit-length vectors, one per text, in order', async () => {
    const e = new LocalEmbedder({ dimensions: 256 });
    const texts = [...PASSAGES, 'x', '40k', 'Überprüfung'];
    const vs = await e.embed(texts);
    expect(vs).toHaveLength(texts.length);
    for (const v of vs) expect(norm(v)).toBeCloseTo(1, 10);
    for (const [i, v] of vs.entries()) expect(v).toEqual(e.embedText(texts[i]!));
  });

  it('gives a fixed unit vector, far from every real text, to text without content words', async () => {
    const e = new LocalEmbedder({});
    const [empty, blank, stops, punct] = await e.embed(['', '   \n', 'the of and to it is', '... !!! ---']);
    expect(norm(empty!)).toBeCloseTo(1, 10);
    expect(blank).toEqual(empty);
    expect(stops).toEqual(empty);
    expect(punct).toEqual(empty);
    expect(empty!.every((x) => Math.abs(Math.abs(x) - 1 / Math.sqrt(384)) < 1e-12)).toBe(true);
    for (const p of PASSAGES) expect(Math.abs(dot(empty!, e.embedText(p)))).toBeLessThan(0.25);
    expect(lexicalSimilarity('', 'budget')).toBe(0);
    expect(lexicalSimilarity('the of and', 'the of and')).toBe(0);
  });

  it('embeds many texts in order and honours an abort signal', async () => {
    const e = new LocalEmbedder({ dimensions: 32 });
    const texts = Array.from({ length: 600 }, (_, i) => `passage ${i} about topic${i % 7}`);
    const vs = await e.embed(texts);
    expect(vs[599]).toEqual(e.embedText(texts[599]!));
    await expect(e.embed(texts, { signal: AbortSignal.abort() })).rejects.toThrow();
  });
});

describe('local embeddings rank passages', () => {
  it.each([
    ['database failover', 1],
    ['Q3 budget cloud spend', 0],
    ['hiring backend roles referral bonus', 2],
    ['email verification drop-off', 3],
    ['webhook signing secret rotation', 5],
    ['pricing page redesign', 6],
    ['expired certificate outage', 16],
    ['data retention privacy notice', 10],
    ['kubernetes upgrade rollback', 12],
    ['bots in analytics', 17],
    ['transcription cost per minute', 19],
    ['calendar integration roadmap', 11],
  ])('"%s" finds passage %i first', (query, expected) => {
    const ranked = rank(query);
    expect(ranked[0]!.i).toBe(expected);
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score + 0.02);
  });

  it('matches inflections and spelling variants', () => {
    expect(rank('failovers')[0]!.i).toBe(1);
    expect(rank('budgets')[0]!.i).toBe(0);
    expect(rank('negotiating contracts')[0]!.i).toBe(9);
    expect(rank('renewing certificates')[0]!.i).toBe(16);
    expect(lexicalSimilarity('failover', 'failovers')).toBeGreaterThan(0.8);
    expect(lexicalSimilarity('budgets', 'budget')).toBeGreaterThan(0.8);
    expect(lexicalSimilarity('failover', 'fail-over')).toBeGreaterThan(0.5);
    expect(lexicalSimilarity('failover', 'budget')).toBeLessThan(0.05);
  });

  it('gives partial credit to near-spellings through character n-grams', () => {
    // A typo shares only n-grams, a weak signal that 384 hashed dimensions blur; the
    // collision-free scorer still ranks it first.
    const score = lexicalScorer('kubernetis');
    const scores = PASSAGES.map(score);
    expect(scores.indexOf(Math.max(...scores))).toBe(12);
    expect(lexicalSimilarity('postmortem', 'post-mortem')).toBeGreaterThan(0.5);
    expect(lexicalSimilarity('observability', 'observabilty')).toBeGreaterThan(0.2);
    expect(lexicalSimilarity('Datenbankmigration', 'Datenbank Migration')).toBeGreaterThan(0.2);
  });

  it('keeps numbers such as 40k and 2026 as words', () => {
    expect(rank('40k')[0]!.i).toBe(0);
    expect(lexicalSimilarity('launch in 2026', 'the 2026 launch')).toBeGreaterThan(0.6);
    expect(lexicalSimilarity('3000 euros', '3,000 euros')).toBeCloseTo(1, 10);
  });

  it('does not let stop words alone create similarity', () => {
    const a = 'we are going to do it and then we will see what they think about it';
    const b = 'they said that it was what we wanted to do and we are going to';
    expect(cos(a, b)).toBeLessThan(0.15);
    expect(lexicalSimilarity('the budget is over there', 'the database is over there')).toBeLessThan(0.1);
    expect(lexicalSimilarity('what is the budget', 'budget')).toBeCloseTo(1, 10);
  });

  it('lets word order matter a little through bigrams', () => {
    const query = 'cache invalidation';
    const phrase = 'The cache invalidation bug is back and the service returns stale data.';
    const scattered = 'The invalidation job failed, so the service returns stale data from the cache.';
    expect(lexicalSimilarity(query, phrase)).toBeGreaterThan(lexicalSimilarity(query, scattered));
    expect(cos('release plan', 'release plan')).toBeCloseTo(1, 10);
    const swapped = cos('release plan', 'plan release');
    expect(swapped).toBeLessThan(0.95);
    expect(swapped).toBeGreaterThan(0.7);
  });

  it('handles German and French meetings', () => {
    const de = [
      'Anna: Die Migration der Datenbank ist für nächste Woche geplant, wir brauchen ein Wartungsfenster am Samstag.',
      'Jörg: Das Budget für die Marketingkampagne ist überschritten, wir müssen die Ausgaben im Oktober kürzen.',
      'Anna: Die Kündigungsfrist für den Mietvertrag beträgt drei Monate.',
    ];
    const fr = [
      'Claire: La migration de la base de données est prévue pour la semaine prochaine, avec une fenêtre de maintenance samedi.',
      'Hugo: Le budget de la campagne marketing est dépassé, il faut réduire les dépenses en octobre.',
      "Claire: L'équipe a décidé de recruter deux développeurs après l'été.",
    ];
    const best = (q: string, ps: string[]) =>
      ps.map((p, i) => ({ i, s: lexicalSimilarity(q, p) })).sort((x, y) => y.s - x.s)[0]!.i;
    expect(best('Datenbank Migration Wartungsfenster', de)).toBe(0);
    expect(best('Marketingkampagne Budget überschritten', de)).toBe(1);
    expect(best('Kündigungsfrist', de)).toBe(2);
    expect(best('migration base de données', fr)).toBe(0);
    expect(best('dépenses campagne', fr)).toBe(1);
    expect(best('recrutement développeurs équipe', fr)).toBe(2);
    // diacritics do not matter
    expect(lexicalSimilarity('Überprüfung', 'uberprufung')).toBeCloseTo(1, 10);
    expect(lexicalSimilarity('équipe décidé', 'equipe decide')).toBeCloseTo(1, 10);
    // German and French function words are stop words
    expect(tokenize('die Prüfung und der Plan').map((t) => t.word)).toEqual(['prufung', 'plan']);
    expect(tokenize("l'équipe a décidé que nous").map((t) => t.word)).toEqual(['equipe', 'decide']);
  });
});

describe('tokenize', () => {
  it('returns folded, stemmed content words with offsets into the original text', () => {
    const text = "Marcus: The Failovers in Zürich cost us 40k — we'll re-test in 2026, naïvely.";
    const tokens = tokenize(text);
    expect(tokens.map((t) => [t.token, t.word, text.slice(t.start, t.end)])).toEqual([
      ['marcu', 'marcus', 'Marcus'],
      ['failov', 'failovers', 'Failovers'],
      ['zurich', 'zurich', 'Zürich'],
      ['cost', 'cost', 'cost'],
      ['40k', '40k', '40k'],
      ['test', 'test', 'test'],
      ['2026', '2026', '2026'],
      ['naiv', 'naively', 'naïvely'],
    ]);
  });

  it('keeps offsets right for decomposed accents, ligatures, emoji and numbers', () => {
    const text = 'Cafe\u0301 ﬁnance 🎉 budget of 1,000 and 3.5 units';
    const tokens = tokenize(text);
    expect(tokens.map((t) => [t.word, text.slice(t.start, t.end)])).toEqual([
      ['cafe', 'Cafe\u0301'],
      ['finance', 'ﬁnance'],
      ['budget', 'budget'],
      ['1000', '1,000'],
      ['3.5', '3.5'],
      ['units', 'units'],
    ]);
  });

  it('returns nothing for text without content words', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize("It's what we've done, isn't it?")).toEqual([]);
  });
});

describe('lexicalScorer', () => {
  it('picks the best-matching segment of a passage', () => {
    const segments = [
      'Okay, let us get started, everyone is here.',
      'First the budget: we are 40k over on cloud spend.',
      'Then the failover test, which went badly on Tuesday.',
      'Alright, thanks all, see you next week.',
    ];
    const score = lexicalScorer('failover test');
    const scores = segments.map(score);
    expect(scores.indexOf(Math.max(...scores))).toBe(2);
    expect(scores[0]).toBe(0);
    expect(score('failover test')).toBeCloseTo(1, 10);
    expect(lexicalSimilarity('failover test', segments[2]!)).toBe(scores[2]);
  });
});
