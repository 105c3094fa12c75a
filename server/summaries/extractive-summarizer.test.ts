import { describe, expect, it } from 'vitest';
import { SummarySchema } from '../notes/summary';
import { ExtractiveSummarizer, splitSentences, summarizeExtractively } from './extractive-summarizer';
import type { SummarizerInput } from './summarizer';

function transcript(title: string | null, language: string, lines: [string, string][]): SummarizerInput {
  return {
    title,
    language,
    segments: lines.map(([speaker, content], i) => ({ speaker, content, startTime: i * 15 })),
  };
}

const salesCall = transcript('Acme Corp discovery call', 'en', [
  ['Maria Lopez', 'Hi everyone, thanks for joining. Can you hear me okay?'],
  ['Tom Becker', 'Yes, loud and clear. Good morning!'],
  [
    'Maria Lopez',
    'Great. So Acme wants to replace its legacy ticketing system before the holiday season. Mr. Becker, you run support operations, right?',
  ],
  [
    'Tom Becker',
    'Right. We handle about 2.5 million tickets a year and the current tool is slow and frustrating for the team.',
  ],
  ['Maria Lopez', 'Understood. What budget are we working with?'],
  [
    'Tom Becker',
    'We have a budget of $40k for the first year, e.g. licenses and onboarding. Finance approved that last week.',
  ],
  [
    'Maria Lopez',
    "That's great news. Our pro plan fits well within that, and the integrations are excellent.",
  ],
  ['Tom Becker', 'Sounds good. We decided to run a pilot with the Berlin team first.'],
  ['Maria Lopez', "Perfect. I'll send the proposal and pricing by Friday."],
  ['Maria Lopez', 'Tom, can you share the list of integrations you need?'],
  ['Tom Becker', 'Sure, I will send it tomorrow.'],
  ['Maria Lopez', 'The next step is a technical demo with your IT team next Tuesday.'],
  ['Tom Becker', 'Great, looking forward to it. Thanks!'],
]);

const sprintPlanning = transcript('Sprint 42 planning', 'en', [
  ['Priya', 'Morning all. Let me share my screen.'],
  ['Priya', 'This sprint we need to finish the billing migration and fix the flaky login tests.'],
  ['Jonas', 'The migration is mostly done, the remaining piece is the invoice export.'],
  ['Priya', 'Okay. Jonas, can you take the invoice export by Wednesday?'],
  ['Jonas', "Yes, I'll take care of the invoice export."],
  ['Priya', 'Ana, could you look into the flaky login tests before the end of the sprint?'],
  ['Ana', "Sure. I'm going to pair with QA on that."],
  ['Priya', "We'll go with feature flags for the new checkout instead of a long-lived branch."],
  ['Ana', 'Agreed.'],
  ['Jonas', 'Should we also upgrade Postgres this sprint?'],
  ['Priya', "No, let's push that to next sprint. Decision is to keep Postgres 15 for now."],
  ['Ana', 'Action item: Jonas to update the runbook by EOD.'],
  ['Priya', 'Please also send the release notes to support by next Monday, Ana.'],
  ['Priya', 'Thanks everyone, see you at the standup.'],
]);

const incidentReview = transcript('Incident review: checkout outage', 'en', [
  ['Sam', 'Hi all. Thanks for joining on short notice.'],
  ['Sam', 'On Tuesday the checkout service was down for 47 minutes and customers could not pay.'],
  ['Lee', 'The root cause was a bad config push. The rollback failed because the pipeline was broken.'],
  ['Sam', 'This is unacceptable. Support got hundreds of angry complaints and we lost revenue.'],
  ['Lee', 'Honestly the alerting was not good either, we were blind for twenty minutes.'],
  ['Kim', "I'm worried this will happen again, the deploy process is fragile and the team is frustrated."],
  ['Sam', 'We decided to freeze config pushes until we have canary deployments.'],
  ['Lee', 'I will write the postmortem by Thursday.'],
  ['Sam', 'Kim, can you add an alert on checkout error rates?'],
  ['Kim', 'Yes. That is a terrible gap and I will fix it this week.'],
]);

const germanStandup = transcript('Daily Standup', 'de', [
  ['Lena', 'Guten Morgen zusammen! Hört ihr mich?'],
  ['Max', 'Ja, alles gut.'],
  ['Lena', 'Heute geht es um den Release der neuen Suchfunktion, der für Donnerstag geplant ist.'],
  ['Max', 'Ich habe gestern die API fertig gemacht, das lief super.'],
  ['Lena', 'Sehr gut. Wir machen den Release dann am Donnerstag um 10 Uhr.'],
  ['Max', 'Ich schicke die Release Notes bis Mittwoch.'],
  ['Lena', 'Jana, kannst du bitte die Tests bis morgen prüfen?'],
  ['Jana', 'Ja, mache ich. Leider ist die Staging-Umgebung noch langsam, aber das ist kein Problem.'],
  ['Lena', 'Super, danke euch!'],
]);

const one = (content: string, speaker = 'Alex') => transcript(null, 'en', [[speaker, content]]);

describe('ExtractiveSummarizer on realistic transcripts', () => {
  const summarizer = new ExtractiveSummarizer();

  it('summarizes a sales call: opening context, budget, decision, owners and deadlines, positive', async () => {
    expect(await summarizer.summarize(salesCall)).toEqual({
      context:
        'Acme Corp discovery call — Acme wants to replace its legacy ticketing system before the holiday season.',
      decisions: ['Finance approved that last week', 'We decided to run a pilot with the Berlin team first'],
      action_items: [
        { task: 'Send the proposal and pricing', owner: 'Maria Lopez', deadline: 'by Friday' },
        // Tom's "Sure, I will send it tomorrow." answers the request and supplies its deadline.
        { task: 'Share the list of integrations you need', owner: 'Tom Becker', deadline: 'tomorrow' },
      ],
      participants: ['Maria Lopez', 'Tom Becker'],
      next_step: 'A technical demo with your IT team next Tuesday',
      budget_mentioned: '$40k',
      sentiment: 'positive',
    });
  });

  it('summarizes a sprint planning: addressed owners, merged duplicates, affirmed decision, neutral', async () => {
    expect(await summarizer.summarize(sprintPlanning)).toEqual({
      context:
        'Sprint 42 planning — This sprint we need to finish the billing migration and fix the flaky login tests. The migration is mostly done, the remaining piece is the invoice export.',
      decisions: [
        "We'll go with feature flags for the new checkout instead of a long-lived branch",
        'Decision is to keep Postgres 15 for now',
      ],
      action_items: [
        { task: 'Take the invoice export', owner: 'Jonas', deadline: 'by Wednesday' },
        { task: 'Look into the flaky login tests', owner: 'Ana', deadline: 'before the end of the sprint' },
        { task: 'Pair with QA on that', owner: 'Ana', deadline: null },
        { task: 'Update the runbook', owner: 'Jonas', deadline: 'by EOD' },
        { task: 'Send the release notes to support', owner: 'Ana', deadline: 'by next Monday' },
      ],
      participants: ['Priya', 'Jonas', 'Ana'],
      next_step: 'Take the invoice export',
      budget_mentioned: null,
      sentiment: 'neutral',
    });
  });

  it('summarizes a negative incident review', async () => {
    expect(await summarizer.summarize(incidentReview)).toEqual({
      context:
        'Incident review: checkout outage — On Tuesday the checkout service was down for 47 minutes and customers could not pay. The root cause was a bad config push.',
      decisions: ['We decided to freeze config pushes until we have canary deployments'],
      action_items: [
        { task: 'Write the postmortem', owner: 'Lee', deadline: 'by Thursday' },
        { task: 'Add an alert on checkout error rates', owner: 'Kim', deadline: 'this week' },
      ],
      participants: ['Sam', 'Lee', 'Kim'],
      next_step: 'Write the postmortem',
      budget_mentioned: null,
      sentiment: 'negative',
    });
  });

  it('summarizes a German standup', async () => {
    expect(await summarizer.summarize(germanStandup)).toEqual({
      context:
        'Daily Standup — Heute geht es um den Release der neuen Suchfunktion, der für Donnerstag geplant ist. Ich habe gestern die API fertig gemacht, das lief super.',
      decisions: ['Wir machen den Release dann am Donnerstag um 10 Uhr'],
      action_items: [
        { task: 'Schicke die Release Notes', owner: 'Max', deadline: 'bis Mittwoch' },
        { task: 'Die Tests prüfen', owner: 'Jana', deadline: 'bis morgen' },
      ],
      participants: ['Lena', 'Max', 'Jana'],
      next_step: 'Schicke die Release Notes',
      budget_mentioned: null,
      // "kein Problem" counts as positive: negation flips the word.
      sentiment: 'positive',
    });
  });

  it('always returns a valid Summary and is deterministic', async () => {
    for (const input of [salesCall, sprintPlanning, incidentReview, germanStandup]) {
      const first = await summarizer.summarize(input);
      expect(SummarySchema.parse(first)).toEqual(first);
      expect(await summarizer.summarize(structuredClone(input))).toEqual(first);
    }
  });
});

describe('ExtractiveSummarizer edge cases', () => {
  it('is named "extractive" and honours an aborted signal', async () => {
    const summarizer = new ExtractiveSummarizer();
    expect(summarizer.name).toBe('extractive');
    await expect(summarizer.summarize(salesCall, { signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it('returns nulls and empty lists for an empty transcript', () => {
    expect(summarizeExtractively({ title: 'Empty', language: 'en', segments: [] })).toEqual({
      context: null,
      decisions: [],
      action_items: [],
      participants: [],
      next_step: null,
      budget_mentioned: null,
      sentiment: null,
    });
  });

  it('treats whitespace-only content as nothing said, but keeps the speakers', () => {
    const summary = summarizeExtractively(
      transcript(null, 'en', [
        ['A', '   '],
        ['B', ''],
      ]),
    );
    expect(summary).toMatchObject({ context: null, participants: ['A', 'B'], sentiment: null });
  });

  it('falls back to the first words when a meeting is only small talk', () => {
    const summary = summarizeExtractively(
      transcript(null, 'en', [
        ['A', 'Hi!'],
        ['B', 'Hello, can you hear me?'],
        ['A', 'Yes.'],
      ]),
    );
    expect(summary).toEqual({
      context: 'Hi!',
      decisions: [],
      action_items: [],
      participants: ['A', 'B'],
      next_step: null,
      budget_mentioned: null,
      sentiment: 'neutral',
    });
  });

  it('skips greetings and small talk when choosing the context', () => {
    const input = transcript(null, 'en', [
      ['A', 'Good morning everyone! How are you?'],
      ['B', "I'm good, thanks. Can you see my screen?"],
      ['A', "Let's get started."],
      ['A', "Let's start with the budget review for the spring campaign. We overspent in March."],
    ]);
    expect(summarizeExtractively(input).context).toBe(
      "Let's start with the budget review for the spring campaign. We overspent in March.",
    );
  });

  it('lists distinct speakers in order of first appearance', () => {
    const input = transcript(null, 'en', [
      ['Bea', 'x'],
      [' Al ', 'y'],
      ['Bea', 'z'],
      ['al', 'w'],
      ['Cy', 'v'],
    ]);
    expect(summarizeExtractively(input).participants).toEqual(['Bea', 'Al', 'Cy']);
  });

  it('owns a request only when the addressed name is a participant', () => {
    const input = transcript(null, 'en', [
      ['Ana', 'Bob, can you send the contract to legal?'],
      ['Ana', 'Ben, could you book the room for the workshop, please?'],
      ['Ben', 'Sure thing, no worries at all.'],
      ['Ana', 'Can you update the forecast sheet, Ben?'],
    ]);
    expect(summarizeExtractively(input).action_items).toEqual([
      { task: 'Send the contract to legal', owner: null, deadline: null },
      { task: 'Book the room for the workshop', owner: 'Ben', deadline: null },
      { task: 'Update the forecast sheet', owner: 'Ben', deadline: null },
    ]);
  });

  it('does not mistake figures of speech or pronoun-only promises for action items', () => {
    const input = transcript(null, 'en', [
      ['A', "I'll be honest with you, the numbers look fine."],
      ['B', "I'll do it."],
      ['A', 'We should probably think about hiring at some point.'],
    ]);
    expect(summarizeExtractively(input).action_items).toEqual([]);
  });

  it('caps and deduplicates decisions and action items', () => {
    const lines: [string, string][] = [];
    for (let i = 0; i < 20; i++) {
      lines.push(['A', `We decided to ship feature number ${i} in the next release.`]);
      lines.push(['B', `I'll write the documentation for feature ${i} by Friday.`]);
      lines.push(['B', `I'll write the documentation for feature ${i} by Friday.`]);
    }
    const summary = summarizeExtractively(transcript(null, 'en', lines));
    expect(summary.decisions).toHaveLength(6);
    expect(summary.action_items).toHaveLength(10);
    expect(new Set(summary.action_items.map((a) => a.task)).size).toBe(10);
    expect(summary.action_items[3]).toEqual({
      task: 'Write the documentation for feature 3',
      owner: 'B',
      deadline: 'by Friday',
    });
  });

  it('takes decisions from cues, from "Agreed." after a proposal, and ignores questions and negations', () => {
    const input = transcript(null, 'en', [
      ['A', "Let's move the launch to May."],
      ['B', 'Agreed.'],
      ['A', 'Did we decide on the vendor yet?'],
      ['B', "We haven't decided on pricing."],
      ['A', 'The budget was approved by the board on Monday.'],
      ['B', "Final answer: we'll go with the annual plan."],
      ['A', 'On part sur la version deux.'],
    ]);
    expect(summarizeExtractively(input).decisions).toEqual([
      "Let's move the launch to May",
      'The budget was approved by the board on Monday',
      "Final answer: we'll go with the annual plan",
      'On part sur la version deux',
    ]);
  });

  it('prefers an explicit next-step sentence over the first action item', () => {
    const input = transcript(null, 'en', [
      ['A', "I'll send the recap by tomorrow."],
      ['B', 'Next steps: schedule a follow-up meeting with the finance team.'],
    ]);
    expect(summarizeExtractively(input).next_step).toBe('Schedule a follow-up meeting with the finance team');
    expect(summarizeExtractively(one("I'll send the recap by tomorrow.")).next_step).toBe('Send the recap');
    expect(summarizeExtractively(one('We reviewed the dashboard together.')).next_step).toBeNull();
  });

  it.each([
    ['We can spend about 40,000 dollars on this.', '40,000 dollars'],
    ['The quote came in at €12,000 per year.', '€12,000'],
    ['We have a budget of 50k for tooling.', '50k'],
    ['Budget: 40k.', '40k'],
    ['Total is USD 1.2M over three years.', 'USD 1.2M'],
    ['It cost us £3.5 million last year.', '£3.5 million'],
    ['Das Budget liegt bei 12.000 Euro.', '12.000 Euro'],
    ['Le budget est de 50 000 €.', '50 000 €'],
    ['Our budget for 2025 planning is open.', null],
    ['We have 3 people and 2,000 users and 2.5 million tickets.', null],
  ])('budget in %j → %j', (content, expected) => {
    expect(summarizeExtractively(one(content)).budget_mentioned).toBe(expected);
  });

  it('prefers an amount said in a budget context over an earlier incidental one', () => {
    const input = transcript(null, 'en', [
      ['A', 'Lunch was $25 per person, by the way.'],
      ['B', 'For the rollout our budget is $120k, including training.'],
    ]);
    expect(summarizeExtractively(input).budget_mentioned).toBe('$120k');
  });

  it.each([
    [['The results are not good at all.', 'This is not great and the delay is bad.'], 'negative'],
    [
      [
        'There is no problem with the release.',
        'Everything went well, the team is happy and the demo was great.',
      ],
      'positive',
    ],
    [
      [
        'The launch was a great success.',
        'But the outage was terrible and customers are angry.',
        'Still, the new features are excellent.',
        'The delay is frustrating.',
      ],
      'mixed',
    ],
    [['We reviewed the numbers for the quarter.', 'Then we looked at the roadmap.'], 'neutral'],
    [['Good morning everyone, good to see you.', 'We reviewed the numbers for the quarter.'], 'neutral'],
  ])('sentiment of %j is %s', (contents, expected) => {
    const input = transcript(
      null,
      'en',
      contents.map((c) => ['A', c] as [string, string]),
    );
    expect(summarizeExtractively(input).sentiment).toBe(expected);
  });

  it('handles a 10,000-segment transcript', () => {
    const speakers = ['Ana', 'Ben', 'Chloe', 'Dev'];
    const pool = [
      "I'll send the updated deck by Friday.",
      'We decided to go with the cheaper vendor.',
      'The budget of $40k is tight but doable.',
      'Can you review the pull request, Ben?',
      'Honestly the last release was painful and slow.',
      'The metrics look great this week, e.g. 2.5% more signups.',
    ];
    const segments = Array.from({ length: 10_000 }, (_, i) => ({
      speaker: speakers[i % speakers.length]!,
      content: `${pool[i % pool.length]} Item ${i} is on the list for Mr. Jones.`,
      startTime: i * 5,
    }));
    const summary = summarizeExtractively({ title: 'Marathon', language: 'en', segments });
    expect(SummarySchema.parse(summary)).toEqual(summary);
    expect(summary.participants).toEqual(speakers);
    expect(summary.budget_mentioned).toBe('$40k');
    expect(summary.action_items.length).toBeLessThanOrEqual(10);
  });
});

describe('splitSentences', () => {
  it.each([
    ['We met Mr. Smith and Dr. Jones. They agreed.', ['We met Mr. Smith and Dr. Jones.', 'They agreed.']],
    [
      'Growth was 2.5 percent, e.g. in Q3. Next we plan.',
      ['Growth was 2.5 percent, e.g. in Q3.', 'Next we plan.'],
    ],
    ['Wir treffen uns am 3. März wieder. Danke.', ['Wir treffen uns am 3. März wieder.', 'Danke.']],
    ['I think so... Maybe not! Really? Yes', ['I think so...', 'Maybe not!', 'Really?', 'Yes']],
    ['See J. R. R. Tolkien. Done.', ['See J. R. R. Tolkien.', 'Done.']],
    ['Costs were $1.2M. OK', ['Costs were $1.2M.', 'OK']],
    ['no punctuation at all from the recognizer', ['no punctuation at all from the recognizer']],
    ['  spaced \n out.  ', ['spaced out.']],
    ['', []],
  ])('%j', (content, expected) => {
    expect(splitSentences(content)).toEqual(expected);
  });
});
