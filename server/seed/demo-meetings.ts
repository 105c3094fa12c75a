// Demo meetings used to seed a fresh database with realistic sample data.
// Plain data only: timestamps are in seconds from the start of each recording.

export type DemoSegment = { speaker: string; content: string; start_time: number; end_time: number };
export type DemoSummary = {
  context: string | null;
  decisions: string[];
  action_items: { task: string; owner: string | null; deadline: string | null }[];
  participants: string[];
  next_step: string | null;
  budget_mentioned: string | null;
  sentiment: string | null; // e.g. "positive", "neutral", "mixed", "negative"
};
export type DemoMeeting = {
  title: string | null;
  platform: 'meet' | 'zoom' | 'teams' | 'phone' | 'microphone';
  language: string; // BCP-47-ish: mostly "en", one "de", one "fr"
  days_ago: number; // how long before "now" the meeting started (fractional)
  duration_seconds: number; // last segment end_time, rounded
  segments: DemoSegment[];
  summary: DemoSummary | null; // null = summary not generated yet
  summary_text?: string; // optional plain-text summary
};

export const demoMeetings: DemoMeeting[] = [
  {
    title: 'Sprint 42 planning',
    platform: 'meet',
    language: 'en',
    days_ago: 8.7,
    duration_seconds: 196,
    segments: [
      {
        speaker: 'Priya Raman',
        start_time: 2,
        end_time: 11.9,
        content:
          "Okay, let's get started with sprint 42 planning. We have two weeks, and the sprint ends on Friday the 21st, so let's be realistic about capacity.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 12.2,
        end_time: 22.8,
        content:
          "Capacity-wise we're down one person because Marcus is on call all of next week. So I'd plan for about 34 story points, not the usual 42.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 23.1,
        end_time: 30.9,
        content:
          'Fair. Top priority is the calendar sync rewrite for Quillstack Sync. Customers keep reporting duplicate events after a timezone change.',
      },
      {
        speaker: 'Tom Becker',
        start_time: 31.8,
        end_time: 44.1,
        content:
          'I looked at that yesterday. The bug is in how we store recurring events in UTC. The fix is maybe five points, but the migration for existing data is another eight.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 45.3,
        end_time: 55.3,
        content:
          "Can we ship the fix behind a flag and run the migration separately? I don't want a thirteen-point ticket sitting in review for a week.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 55.8,
        end_time: 64.9,
        content:
          'Yes, I can split it. Fix first behind the sync_v2 flag, and the migration script the following sprint if we still need it.',
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 65.8,
        end_time: 75.2,
        content:
          'On my side, the onboarding checklist redesign is ready for handoff. The Figma file has the final states, including the empty state we argued about.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 76,
        end_time: 79.5,
        content: 'Great. How big is the front-end work for that, Daniel?',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 80.6,
        end_time: 87.8,
        content:
          'Probably eight points. The checklist component is new, but the progress bar already exists in the design system.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 88.7,
        end_time: 99.9,
        content:
          "Then let's talk about the kangaroo rollout. For anyone who missed it, that's the staged release where we hop from five percent to twenty-five to a hundred over three days.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 100.4,
        end_time: 110.5,
        content:
          "I like the kangaroo rollout for the sync fix, but we need better dashboards first. Right now we can't see the duplicate event rate per workspace.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 110.8,
        end_time: 119.1,
        content:
          "I'll add a Grafana panel for duplicates per workspace. That's two points, and I can have it done by Wednesday.",
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 119.3,
        end_time: 130.3,
        content:
          'Can I raise one risk? The accessibility audit found contrast issues on the settings page, and the report says we have to fix them before the enterprise pilot.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 130.5,
        end_time: 132.5,
        content: 'When does the pilot start again?',
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 132.7,
        end_time: 140.1,
        content:
          'The pilot with Northwind Logistics starts on the 3rd of next month, so we have roughly three weeks.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 141.3,
        end_time: 150.1,
        content:
          "Okay, let's pull the contrast fixes in. Sofia, can you pair with Tom on that? It should be three points at most.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 150.9,
        end_time: 157.8,
        content:
          "Sure, that's mostly design token changes. I'd rather do it Thursday, after the sync fix is in review.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 158.8,
        end_time: 168.5,
        content:
          "So the tally is: sync fix five, onboarding checklist eight, dashboard two, contrast fixes three. That's eighteen, which leaves room for bugs and a migration spike.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 169.4,
        end_time: 178.6,
        content:
          "Let's add a three-point spike on the data migration so we're not guessing next sprint. That brings us to twenty-one committed points plus buffer.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 179.6,
        end_time: 186.5,
        content:
          "Works for me. I'll write up the spike ticket today with the three migration options we discussed.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 187.2,
        end_time: 196.4,
        content:
          'Perfect. Decisions: ship the sync fix behind the flag using the kangaroo rollout, defer the migration, and pull in the contrast fixes. Thanks, everyone.',
      },
    ],
    summary: {
      context:
        'Sprint 42 planning for the Quillstack team. Capacity is reduced to about 34 points because Marcus is on call next week; the sprint ends Friday the 21st.',
      decisions: [
        'Ship the recurring-event sync fix behind the sync_v2 flag and release it via the kangaroo rollout (5% → 25% → 100% over three days)',
        'Defer the data migration for existing events and add a 3-point migration spike instead',
        'Pull the settings-page contrast fixes into this sprint ahead of the Northwind Logistics pilot',
        'Commit to 21 points plus buffer',
      ],
      action_items: [
        {
          task: 'Add a Grafana panel showing duplicate events per workspace',
          owner: 'Daniel Okafor',
          deadline: 'Wednesday',
        },
        {
          task: 'Fix settings-page contrast issues (paired with Tom)',
          owner: 'Sofia Alvarez',
          deadline: 'Thursday',
        },
        {
          task: 'Split the sync ticket and implement the fix behind the sync_v2 flag',
          owner: 'Tom Becker',
          deadline: null,
        },
        {
          task: 'Write the migration spike ticket with the three options discussed',
          owner: 'Tom Becker',
          deadline: 'today',
        },
      ],
      participants: ['Priya Raman', 'Daniel Okafor', 'Tom Becker', 'Sofia Alvarez'],
      next_step:
        'Start the sprint; the duplicates dashboard must be live before the kangaroo rollout of the sync fix begins.',
      budget_mentioned: null,
      sentiment: 'positive',
    },
    summary_text:
      'Sprint 42 planning. With Marcus on call, the team planned for ~34 points and committed 21 plus buffer: the recurring-event sync fix (behind the sync_v2 flag, released via the kangaroo rollout), the onboarding checklist, a duplicates-per-workspace dashboard (Daniel, by Wednesday), and the settings-page contrast fixes (Sofia and Tom, Thursday) needed before the Northwind Logistics pilot. The data migration is deferred; Tom writes a 3-point spike ticket today.',
  },
  {
    title: 'Discovery call — Harbor & Pine Dental Group',
    platform: 'zoom',
    language: 'en',
    days_ago: 5.4,
    duration_seconds: 187,
    segments: [
      {
        speaker: 'Priya Raman',
        start_time: 0,
        end_time: 8.5,
        content:
          'Thanks for making time, Rachel and Kevin. Today I mostly want to listen: how does staff scheduling work across your clinics right now?',
      },
      {
        speaker: 'Rachel Goldberg',
        start_time: 8.8,
        end_time: 18.6,
        content:
          "Honestly, it's a mess. We have fourteen clinics, and each office manager keeps their own spreadsheet, plus the whiteboard in the break room that nobody updates.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 19,
        end_time: 26.1,
        content:
          'Fourteen clinics, got it. When a hygienist covers a shift at another location, how does that get communicated?',
      },
      {
        speaker: 'Rachel Goldberg',
        start_time: 26.7,
        end_time: 36.8,
        content:
          'Usually a group text at six in the morning. Last month two hygienists showed up at the Elm Street clinic and nobody showed up at Riverside.',
      },
      {
        speaker: 'Kevin Tran',
        start_time: 37.3,
        end_time: 46.4,
        content:
          "From the IT side, everyone is on Microsoft 365, so Outlook calendars exist, but the clinics don't actually use them for shifts.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 46.6,
        end_time: 53.4,
        content:
          'Interesting. Is there a reason they avoid Outlook for that? Is it permissions, or just habit?',
      },
      {
        speaker: 'Kevin Tran',
        start_time: 54.6,
        end_time: 62.9,
        content:
          'Mostly permissions. Shared calendars across that many mailboxes turned into a nightmare, and we gave up after about three weeks.',
      },
      {
        speaker: 'Rachel Goldberg',
        start_time: 63.7,
        end_time: 71.7,
        content:
          'And the office managers want to see the whole week on one screen. Outlook makes that painful on the front-desk monitors.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 72.7,
        end_time: 80.3,
        content:
          'If you could wave a magic wand, what would the ideal Monday morning look like for an office manager?',
      },
      {
        speaker: 'Rachel Goldberg',
        start_time: 81.3,
        end_time: 92.7,
        content:
          "They open one view, see who's covering where, and get an alert if any chair is unstaffed before nine. That alone would save each manager an hour a day.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 93.7,
        end_time: 101.4,
        content:
          'An hour a day per manager is significant. Are you measuring that today, or is it a gut feeling?',
      },
      {
        speaker: 'Rachel Goldberg',
        start_time: 101.6,
        end_time: 110.2,
        content:
          'Gut feeling, but I could ask three managers to log it for a week. Wendy at Riverside would love to do that.',
      },
      {
        speaker: 'Kevin Tran',
        start_time: 110.9,
        end_time: 120.6,
        content:
          "One hard requirement from me: single sign-on through Entra ID, and we need an audit log. We're under HIPAA, so anything touching staff schedules gets reviewed.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 121.3,
        end_time: 132.1,
        content:
          "That's helpful. We support SAML SSO today, and the audit log export is on our roadmap for this quarter. Does the schedule data include any patient information?",
      },
      {
        speaker: 'Kevin Tran',
        start_time: 132.9,
        end_time: 139.7,
        content: 'No, staff only. But our compliance officer will still ask for a BAA just to be safe.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 140.1,
        end_time: 147.1,
        content: 'Understood. What would make you say no to a tool like ours, even if it worked well?',
      },
      {
        speaker: 'Rachel Goldberg',
        start_time: 147.5,
        end_time: 156.5,
        content:
          'If it needs a week of training. Our front desk turnover is high, so it has to be obvious in ten minutes.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 157,
        end_time: 166.6,
        content:
          "That's a great bar. Would you be open to a follow-up where Sofia, our designer, walks you through a prototype of a weekly coverage view?",
      },
      {
        speaker: 'Rachel Goldberg',
        start_time: 167,
        end_time: 169.8,
        content: 'Yes, definitely. Next Tuesday afternoon works for me.',
      },
      {
        speaker: 'Kevin Tran',
        start_time: 170.2,
        end_time: 175.8,
        content: "I'll send over our security questionnaire before then so it doesn't block anything later.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 176.8,
        end_time: 187.1,
        content:
          "Perfect. I'll send a recap today and a calendar invite for Tuesday. Rachel, if the managers can log their scheduling time this week, that would be gold.",
      },
    ],
    summary: {
      context:
        'Customer discovery call with Harbor & Pine Dental Group (14 clinics) about how staff scheduling and shift coverage work today.',
      decisions: [
        'Hold a follow-up next Tuesday afternoon where Sofia walks through a prototype of the weekly coverage view',
      ],
      action_items: [
        {
          task: 'Send a call recap and a calendar invite for the Tuesday walkthrough',
          owner: 'Priya Raman',
          deadline: 'today',
        },
        {
          task: 'Ask three office managers to log their scheduling time for a week',
          owner: 'Rachel Goldberg',
          deadline: 'this week',
        },
        {
          task: "Send Harbor & Pine's security questionnaire",
          owner: 'Kevin Tran',
          deadline: 'before next Tuesday',
        },
      ],
      participants: ['Priya Raman', 'Rachel Goldberg', 'Kevin Tran'],
      next_step: 'Prototype walkthrough of the weekly coverage view next Tuesday afternoon.',
      budget_mentioned: null,
      sentiment: 'positive',
    },
  },
  {
    title: 'Quillstack Insights demo — Brightwater Analytics',
    platform: 'zoom',
    language: 'en',
    days_ago: 7.2,
    duration_seconds: 198,
    segments: [
      {
        speaker: "Liam O'Brien",
        start_time: 1,
        end_time: 12.2,
        content:
          "Thanks for joining, Greg and Aisha. Nina is going to drive the demo, and we'll save the last fifteen minutes for pricing, since I know that's on Aisha's mind.",
      },
      {
        speaker: 'Aisha Khan',
        start_time: 13.2,
        end_time: 21.9,
        content:
          "It is. We have a hard ceiling this fiscal year, so I'd rather know early if we're in the same ballpark.",
      },
      {
        speaker: 'Nina Petrova',
        start_time: 22.6,
        end_time: 32.5,
        content:
          'Totally fair. Let me share my screen. This is the Insights dashboard connected to a sample workspace with about 120 users, which is roughly your size.',
      },
      {
        speaker: 'Greg Holloway',
        start_time: 33.4,
        end_time: 40.9,
        content:
          "We're at 118 seats right now, and we'll probably hit 140 by summer after the Denver office opens.",
      },
      {
        speaker: 'Nina Petrova',
        start_time: 41.2,
        end_time: 53,
        content:
          'Good to know. Here you can see meeting load per team. Your ops team could spot who is in more than twenty hours of meetings a week and rebalance.',
      },
      {
        speaker: 'Greg Holloway',
        start_time: 53.2,
        end_time: 61.9,
        content:
          'That view alone would rescue me from the spreadsheet graveyard we keep in SharePoint. Can it break down by project code?',
      },
      {
        speaker: 'Nina Petrova',
        start_time: 62.5,
        end_time: 73.7,
        content:
          'Yes, if the project code is in the calendar event or the Jira key is in the title. We parse both, and the mapping is editable in settings.',
      },
      {
        speaker: 'Greg Holloway',
        start_time: 74.2,
        end_time: 80.9,
        content:
          "What about exports? Our board deck pulls these numbers every month, and I'm not retyping them.",
      },
      {
        speaker: 'Nina Petrova',
        start_time: 81.8,
        end_time: 91,
        content:
          "There's a scheduled CSV export and a REST API. Most customers set up a monthly export to a shared drive in about ten minutes.",
      },
      {
        speaker: 'Aisha Khan',
        start_time: 92,
        end_time: 96.7,
        content: "Okay, I've seen enough to know it's useful. Let's talk numbers.",
      },
      {
        speaker: "Liam O'Brien",
        start_time: 97.5,
        end_time: 106.7,
        content:
          "Sure. List price for the Business tier is $36 per seat per month, billed annually. At 120 seats, that's about $52,000 a year.",
      },
      {
        speaker: 'Aisha Khan',
        start_time: 107.2,
        end_time: 116.3,
        content:
          "That's well above what I have. Our budget for this line item is $40k for the year, and that number isn't moving before July.",
      },
      {
        speaker: "Liam O'Brien",
        start_time: 117.3,
        end_time: 128.4,
        content:
          'Understood. Two options I can offer: a two-year commitment brings it to $44,000 annually, or we start at 100 seats on the Business tier, which lands right around $40,000.',
      },
      {
        speaker: 'Greg Holloway',
        start_time: 128.6,
        end_time: 135.1,
        content: "Starting at 100 seats would leave the warehouse team out. I'd rather have everyone on it.",
      },
      {
        speaker: 'Aisha Khan',
        start_time: 135.5,
        end_time: 142.2,
        content:
          'Can you do $40,000 for all 120 seats if we sign the two-year term and pay annually upfront?',
      },
      {
        speaker: "Liam O'Brien",
        start_time: 142.4,
        end_time: 152.2,
        content:
          "I'd need approval from Maya, our CEO, for anything under $44k. I can take that to her tomorrow, but I can't promise it today.",
      },
      {
        speaker: 'Aisha Khan',
        start_time: 152.4,
        end_time: 158.3,
        content: "That's fine. If you get it, we could sign before the end of the month.",
      },
      {
        speaker: 'Nina Petrova',
        start_time: 159.2,
        end_time: 167.4,
        content:
          "One more thing on seats: additional users beyond 120 would be prorated, so the Denver office wouldn't force a new contract.",
      },
      {
        speaker: 'Greg Holloway',
        start_time: 168.2,
        end_time: 174.6,
        content: "Good. Is SSO included in that tier? Our IT lead won't approve anything without it.",
      },
      {
        speaker: "Liam O'Brien",
        start_time: 175.4,
        end_time: 181.9,
        content:
          "SSO is included in Business. I'll put it explicitly in the proposal so there's no confusion.",
      },
      {
        speaker: 'Aisha Khan',
        start_time: 182.8,
        end_time: 191.1,
        content:
          "Then please send a proposal with both the two-year option and the 100-seat option, and we'll review it on Thursday.",
      },
      {
        speaker: "Liam O'Brien",
        start_time: 191.8,
        end_time: 197.5,
        content:
          "Will do. You'll have it by tomorrow evening, including Maya's answer on the $40,000 request.",
      },
    ],
    summary: {
      context:
        'Product demo of Quillstack Insights for Brightwater Analytics (118 seats, growing to ~140 after the Denver office opens), followed by a pricing discussion.',
      decisions: [
        'Liam will send a proposal with two options: a two-year term at $44,000 per year for 120 seats, or 100 seats at about $40,000 per year',
        'Liam will ask Maya to approve $40,000 per year for all 120 seats on a two-year term paid annually upfront',
        'SSO will be listed explicitly in the proposal',
      ],
      action_items: [
        {
          task: 'Get CEO approval on the $40,000 request for 120 seats',
          owner: "Liam O'Brien",
          deadline: 'tomorrow',
        },
        {
          task: 'Send the proposal with the two-year and 100-seat options',
          owner: "Liam O'Brien",
          deadline: 'tomorrow evening',
        },
        { task: 'Review the proposal with Greg', owner: 'Aisha Khan', deadline: 'Thursday' },
      ],
      participants: ["Liam O'Brien", 'Aisha Khan', 'Nina Petrova', 'Greg Holloway'],
      next_step:
        'Brightwater reviews the proposal on Thursday; signature possible before the end of the month.',
      budget_mentioned:
        '$40,000 annual budget (list price ~$52,000/year; $44,000/year offered on a two-year term)',
      sentiment: 'positive',
    },
  },
  {
    title: 'Post-mortem: EU sync outage (INC-317)',
    platform: 'meet',
    language: 'en',
    days_ago: 10.5,
    duration_seconds: 236,
    segments: [
      {
        speaker: 'Marcus Lee',
        start_time: 3,
        end_time: 12.2,
        content:
          'Alright, this is the blameless post-mortem for INC-317, the EU sync outage last Tuesday. Total customer impact was forty-seven minutes, starting at 14:02 UTC.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 12.5,
        end_time: 19.5,
        content:
          'Before we go into the timeline, can you give the one-sentence root cause so everyone has the frame?',
      },
      {
        speaker: 'Marcus Lee',
        start_time: 20.4,
        end_time: 32.2,
        content:
          "The primary's disk filled up with WAL files because an old replication slot from the decommissioned analytics replica was never dropped. Once the disk hit a hundred percent, writes stopped.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 32.5,
        end_time: 38.9,
        content: 'And that slot had been sitting there since we shut down the analytics box in, what, March?',
      },
      {
        speaker: 'Marcus Lee',
        start_time: 39.1,
        end_time: 50.8,
        content:
          'Since March 9th. It retained about 410 gigabytes of WAL. Disk usage crept up slowly, so the eighty percent alert fired once on a Saturday and got acknowledged without a follow-up.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 51.8,
        end_time: 57.5,
        content: "Okay, that's a process gap, not a person gap. What happened after writes stopped?",
      },
      {
        speaker: 'Marcus Lee',
        start_time: 57.7,
        end_time: 68.6,
        content:
          'We triggered a failover to the standby at 14:09. The Postgres failover took eleven minutes, which is way too long. Patroni waited through three health-check cycles before promoting.',
      },
      {
        speaker: 'Tom Becker',
        start_time: 69.6,
        end_time: 80.8,
        content:
          'Then PgBouncer kept stale connections to the old primary, so even after promotion about a third of the API pods were still erroring until we restarted them at 14:38.',
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 81.5,
        end_time: 93.5,
        content:
          "From support's side, we got 312 tickets in that window. The biggest pain was that the status page wasn't updated until 14:27, so customers assumed it was their own setup.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 93.9,
        end_time: 101.3,
        content:
          'Twenty-five minutes to the first status update is not acceptable. Hannah, who owns posting to the status page today?',
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 101.9,
        end_time: 107.9,
        content:
          'Technically whoever is incident commander, but in practice it was nobody until I pinged the channel.',
      },
      {
        speaker: 'Marcus Lee',
        start_time: 108.1,
        end_time: 118.1,
        content:
          "That's on our runbook. I'd propose a rule: first status page post within ten minutes of declaring an incident, even if it just says we're investigating.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 118.7,
        end_time: 126.5,
        content:
          "Agreed, let's adopt that. Now the action items on the database side. Marcus, what would prevent this class of issue?",
      },
      {
        speaker: 'Marcus Lee',
        start_time: 126.9,
        end_time: 137.7,
        content:
          'Three things: an alert on replication slot lag above 50 gigabytes, a weekly job that flags inactive slots, and tuning Patroni so failover completes in under two minutes.',
      },
      {
        speaker: 'Tom Becker',
        start_time: 138.3,
        end_time: 146.1,
        content:
          "I'd add a PgBouncer change: set server_check_query with a short interval, so it drops connections to a demoted primary automatically.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 146.4,
        end_time: 152.8,
        content:
          "Good. Can we have the slot-lag alert live by Friday? That's the cheapest and highest-value fix.",
      },
      {
        speaker: 'Marcus Lee',
        start_time: 153.5,
        end_time: 164.1,
        content:
          "Yes, Friday for the alert. The Patroni tuning needs a game day, so I'd say end of next week, and we test it in staging first.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 165.1,
        end_time: 172.3,
        content:
          "I'll take the PgBouncer change and the pod restart automation. I can have a PR up by Thursday.",
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 172.7,
        end_time: 183.5,
        content:
          "On my end, I'll write a customer-facing incident report and send it to the 40 accounts that opened priority tickets. Can I get a technical review on Monday?",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 184.4,
        end_time: 191.3,
        content:
          "I'll review it Monday morning. Keep it plain: what happened, what we're changing, and no jargon about WAL.",
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 191.6,
        end_time: 196.7,
        content: 'Also, should we offer service credits? Two of the enterprise customers asked directly.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 197.3,
        end_time: 209,
        content:
          "Our SLA is 99.9 percent monthly, and forty-seven minutes puts the EU region just under that. So yes, credits are contractually owed for enterprise accounts. I'll loop in finance.",
      },
      {
        speaker: 'Marcus Lee',
        start_time: 209.6,
        end_time: 219.7,
        content:
          "Last thing: I'll run a game day in staging where we deliberately fill the disk, so we validate the alert and the failover timing end to end.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 220.3,
        end_time: 235.9,
        content:
          'Great. To recap: slot-lag alert by Friday, PgBouncer fix by Thursday, Patroni tuning and the game day by end of next week, and the ten-minute status page rule is effective now. Thanks, everyone, this was a good, honest review.',
      },
    ],
    summary: {
      context:
        "Blameless post-mortem for INC-317, a 47-minute EU sync outage. Root cause: an orphaned replication slot from a decommissioned analytics replica retained ~410 GB of WAL until the primary's disk filled; failover took eleven minutes and stale PgBouncer connections prolonged the impact.",
      decisions: [
        'Adopt a rule that the first status page post goes out within ten minutes of declaring an incident, effective immediately',
        'Add an alert on replication slot lag above 50 GB and a weekly job that flags inactive slots',
        'Tune Patroni so failover completes in under two minutes, validated in a staging game day',
        'Service credits are owed to enterprise accounts in the EU region under the 99.9% SLA',
      ],
      action_items: [
        { task: 'Ship the replication slot lag alert', owner: 'Marcus Lee', deadline: 'Friday' },
        {
          task: 'Tune Patroni failover and run a disk-fill game day in staging',
          owner: 'Marcus Lee',
          deadline: 'end of next week',
        },
        {
          task: 'Open a PR for the PgBouncer server_check_query change and pod restart automation',
          owner: 'Tom Becker',
          deadline: 'Thursday',
        },
        {
          task: 'Write the customer-facing incident report for the 40 accounts with priority tickets',
          owner: 'Hannah Weiss',
          deadline: 'Monday',
        },
        {
          task: 'Review the incident report and loop in finance about service credits',
          owner: 'Daniel Okafor',
          deadline: 'Monday',
        },
      ],
      participants: ['Marcus Lee', 'Daniel Okafor', 'Tom Becker', 'Hannah Weiss'],
      next_step:
        'Alert live by Friday, then the staging game day to validate alerting and failover timing end to end.',
      budget_mentioned: null,
      sentiment: 'neutral',
    },
    summary_text:
      "INC-317 post-mortem: the EU sync outage lasted 47 minutes. An orphaned replication slot filled the Postgres primary's disk with WAL; the Postgres failover took eleven minutes and PgBouncer held stale connections until pods were restarted at 14:38. The status page was only updated after 25 minutes, so a ten-minute first-post rule is now in effect. Marcus ships a slot-lag alert by Friday and tunes Patroni (game day by end of next week); Tom fixes PgBouncer by Thursday; Hannah drafts the customer report for Monday review. Enterprise customers are owed SLA credits.",
  },
  {
    title: '1:1 Camille / Julien',
    platform: 'teams',
    language: 'fr',
    days_ago: 12.3,
    duration_seconds: 147,
    segments: [
      {
        speaker: 'Camille Durand',
        start_time: 0.5,
        end_time: 9.9,
        content:
          "Salut Julien, merci d'être là. Comment s'est passée ta semaine ? J'ai vu que tu as fini la refonte du composant de calendrier.",
      },
      {
        speaker: 'Julien Moreau',
        start_time: 10.6,
        end_time: 19.5,
        content:
          "Plutôt bien, merci. La refonte est terminée et les tests passent, mais j'ai passé presque deux jours à corriger des bugs sur Safari.",
      },
      {
        speaker: 'Camille Durand',
        start_time: 19.7,
        end_time: 26.7,
        content:
          'Safari, toujours Safari. Est-ce que tu te sens surchargé en ce moment, ou ça reste gérable ?',
      },
      {
        speaker: 'Julien Moreau',
        start_time: 27.2,
        end_time: 34.5,
        content:
          "C'est gérable, mais les revues de code prennent beaucoup de temps. J'en ai fait onze la semaine dernière.",
      },
      {
        speaker: 'Camille Durand',
        start_time: 34.9,
        end_time: 41.5,
        content:
          "Onze, c'est beaucoup. On va mieux répartir les revues avec Tom et Sofia à partir de lundi prochain.",
      },
      {
        speaker: 'Julien Moreau',
        start_time: 42.2,
        end_time: 49.3,
        content:
          "Merci, ça m'aiderait. Je voulais aussi te parler de ma progression. J'aimerais prendre plus de responsabilités techniques cette année.",
      },
      {
        speaker: 'Camille Durand',
        start_time: 49.8,
        end_time: 57.9,
        content:
          "Ça tombe bien. Le mode hors ligne de l'application mobile a besoin d'un responsable technique. Est-ce que ça t'intéresserait ?",
      },
      {
        speaker: 'Julien Moreau',
        start_time: 58.9,
        end_time: 65.4,
        content:
          "Oui, carrément. J'ai déjà quelques idées sur la synchronisation avec IndexedDB et la gestion des conflits.",
      },
      {
        speaker: 'Camille Durand',
        start_time: 66.5,
        end_time: 75.1,
        content:
          "Parfait. Dans ce cas, je te propose d'écrire la spécification technique d'ici le 15 du mois prochain, puis de la présenter à l'équipe.",
      },
      {
        speaker: 'Julien Moreau',
        start_time: 75.3,
        end_time: 84.5,
        content:
          "D'accord. Est-ce que je peux aussi la présenter au demo day du 28 ? Ce serait une bonne occasion d'avoir des retours de Daniel.",
      },
      {
        speaker: 'Camille Durand',
        start_time: 85.3,
        end_time: 93,
        content:
          "Bonne idée, je t'inscris pour le demo day. Autre sujet : tu avais parlé de prendre des congés en août.",
      },
      {
        speaker: 'Julien Moreau',
        start_time: 93.4,
        end_time: 99.3,
        content: 'Oui, trois semaines, du 4 au 22 août. Je pars en Bretagne avec ma famille.',
      },
      {
        speaker: 'Camille Durand',
        start_time: 99.7,
        end_time: 106.5,
        content:
          "Pas de souci. Pose-les dans l'outil RH cette semaine pour que je puisse les valider avant vendredi.",
      },
      {
        speaker: 'Julien Moreau',
        start_time: 106.9,
        end_time: 115.9,
        content:
          "Je le fais aujourd'hui. Un dernier point : j'aimerais suivre une formation sur l'accessibilité web, il y en a une à Lyon en juin.",
      },
      {
        speaker: 'Camille Durand',
        start_time: 117,
        end_time: 127.6,
        content:
          'On a un budget formation de 1 500 euros par personne et par an. Envoie-moi le lien et le prix, et si ça rentre, je valide.',
      },
      {
        speaker: 'Julien Moreau',
        start_time: 128,
        end_time: 134.6,
        content: "Elle coûte 1 200 euros, donc ça devrait passer. Je t'envoie le lien tout de suite.",
      },
      {
        speaker: 'Camille Durand',
        start_time: 134.8,
        end_time: 146.6,
        content:
          'Super. Pour résumer : tu prends le mode hors ligne, la spec pour le 15, le demo day le 28, et on rééquilibre les revues. Merci Julien, bonne fin de journée.',
      },
    ],
    summary: {
      context:
        "Point individuel entre Camille et Julien : charge de travail, revues de code, évolution de carrière, congés d'été et formation.",
      decisions: [
        "Julien devient responsable technique du mode hors ligne de l'application mobile",
        'Les revues de code seront mieux réparties avec Tom et Sofia à partir de lundi prochain',
        'Julien est inscrit au demo day du 28 pour présenter la spécification',
      ],
      action_items: [
        {
          task: 'Écrire la spécification technique du mode hors ligne',
          owner: 'Julien Moreau',
          deadline: 'le 15 du mois prochain',
        },
        {
          task: "Poser les congés du 4 au 22 août dans l'outil RH",
          owner: 'Julien Moreau',
          deadline: "aujourd'hui",
        },
        { task: 'Valider les congés de Julien', owner: 'Camille Durand', deadline: 'vendredi' },
        {
          task: 'Envoyer le lien et le prix de la formation accessibilité à Lyon',
          owner: 'Julien Moreau',
          deadline: null,
        },
        {
          task: 'Rééquilibrer les revues de code avec Tom et Sofia',
          owner: 'Camille Durand',
          deadline: 'lundi prochain',
        },
      ],
      participants: ['Camille Durand', 'Julien Moreau'],
      next_step:
        'Julien rédige la spécification du mode hors ligne pour le 15 et la présente au demo day du 28.',
      budget_mentioned: '1 200 € de formation (budget formation de 1 500 € par personne et par an)',
      sentiment: 'positive',
    },
  },
  {
    title: 'Hiring debrief: Senior Backend Engineer (Elena Vasquez)',
    platform: 'teams',
    language: 'en',
    days_ago: 14.2,
    duration_seconds: 171,
    segments: [
      {
        speaker: 'Grace Liu',
        start_time: 0,
        end_time: 8.7,
        content:
          "Thanks for joining the debrief for Elena Vasquez, senior backend engineer. Let's go around with your vote first, then details. Daniel?",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 9.6,
        end_time: 20.2,
        content:
          "Strong yes. Her system design round was the best we've seen this quarter. She nailed the rate limiter whiteboard exercise and volunteered the failure modes before I asked.",
      },
      {
        speaker: 'Marcus Lee',
        start_time: 20.4,
        end_time: 31.7,
        content:
          "Yes from me, with one reservation. Her on-call experience is mostly at a company with a dedicated ops team, so she hasn't carried a pager for a database herself.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 32.1,
        end_time: 42.6,
        content:
          "Yes. In the product round she asked the best question anyone has asked me: which customer complaint we'd fix first if we had one engineer for a month.",
      },
      {
        speaker: 'Grace Liu',
        start_time: 43.5,
        end_time: 49.5,
        content: 'Great, so three yeses. Marcus, is your reservation a blocker, or something for onboarding?',
      },
      {
        speaker: 'Marcus Lee',
        start_time: 50.2,
        end_time: 55,
        content: "Onboarding. If she shadows two on-call rotations before going primary, I'm comfortable.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 55.6,
        end_time: 59.5,
        content: "That's our standard for everyone anyway, so no change needed there.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 60,
        end_time: 65,
        content: 'How did the coding exercise go? I only saw the scorecard summary.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 66,
        end_time: 74.8,
        content:
          'She finished the pagination task in 35 minutes out of 60 and then refactored the cursor encoding unprompted. Her tests were thorough.',
      },
      {
        speaker: 'Grace Liu',
        start_time: 76,
        end_time: 83.8,
        content:
          "On logistics: she's interviewing with two other companies and expects an offer from one of them by next Friday.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 84.3,
        end_time: 87.6,
        content: "Then we should move fast. What's she asking for?",
      },
      {
        speaker: 'Grace Liu',
        start_time: 88.6,
        end_time: 96.1,
        content:
          "Her expectation is $165,000 base. Our band for senior backend is $150,000 to $170,000, so she's within range.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 97.3,
        end_time: 103.9,
        content: "I'd rather not anchor near the top of the band. Do we have room on equity instead?",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 105.1,
        end_time: 116.1,
        content:
          "We can do the standard senior grant of 0.15 percent. I'd offer $160,000 base plus the standard grant and a $10,000 signing bonus to close the gap.",
      },
      {
        speaker: 'Grace Liu',
        start_time: 116.9,
        end_time: 124.8,
        content:
          "That's a reasonable package. I'll need Maya to sign off on the signing bonus, but she usually approves anything under $15k.",
      },
      {
        speaker: 'Marcus Lee',
        start_time: 125.1,
        end_time: 131.8,
        content: "Can we also mention the home office stipend? She asked about it, and it's $1,000 a year.",
      },
      {
        speaker: 'Grace Liu',
        start_time: 132.6,
        end_time: 139.7,
        content:
          "Good call, I'll include it. Reference checks: she gave me two former managers, and I'll call both tomorrow.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 140.6,
        end_time: 148.4,
        content:
          "If the references are clean, let's get the verbal offer out on Wednesday and the written offer the same day.",
      },
      {
        speaker: 'Grace Liu',
        start_time: 148.9,
        end_time: 154.5,
        content:
          "Agreed. I'll update the scorecards in Greenhouse and send Maya the approval request this afternoon.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 154.8,
        end_time: 162.6,
        content:
          "One last thing: if she accepts, I'd love her to start on the audit log project. It's backend-heavy and customer-visible.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 163.7,
        end_time: 170.7,
        content:
          "Makes sense. We'll decide her first project in week two, but the audit log is the front-runner. Thanks, everyone.",
      },
    ],
    summary: {
      context:
        'Hiring debrief for Elena Vasquez, candidate for Senior Backend Engineer. All three interviewers voted yes; she expects a competing offer by next Friday.',
      decisions: [
        'Extend an offer: $160,000 base, the standard 0.15% senior equity grant, a $10,000 signing bonus and the $1,000/year home office stipend',
        'She will shadow two on-call rotations before going primary',
        'Verbal and written offers go out Wednesday if references are clean',
      ],
      action_items: [
        { task: 'Call both references', owner: 'Grace Liu', deadline: 'tomorrow' },
        {
          task: 'Update scorecards in Greenhouse and send Maya the signing-bonus approval request',
          owner: 'Grace Liu',
          deadline: 'this afternoon',
        },
        { task: 'Deliver the verbal and written offer', owner: 'Grace Liu', deadline: 'Wednesday' },
        {
          task: "Decide Elena's first project (audit log is the front-runner)",
          owner: 'Daniel Okafor',
          deadline: 'week two',
        },
      ],
      participants: ['Grace Liu', 'Daniel Okafor', 'Marcus Lee', 'Priya Raman'],
      next_step: 'Reference checks tomorrow, then the offer on Wednesday.',
      budget_mentioned: '$160,000 base salary + $10,000 signing bonus (band $150,000–$170,000)',
      sentiment: 'positive',
    },
  },
  {
    title: 'Q3 board update',
    platform: 'zoom',
    language: 'en',
    days_ago: 18.0,
    duration_seconds: 168,
    segments: [
      {
        speaker: 'Maya Chen',
        start_time: 4,
        end_time: 16.1,
        content:
          "Thanks, everyone. I'll keep the prepared part short so we have time for discussion. Headline: ARR crossed $2.4 million at the end of the quarter, up from $1.9 million in Q2.",
      },
      {
        speaker: 'Robert Lindqvist',
        start_time: 16.9,
        end_time: 22.2,
        content: "That's a strong quarter. How much of that came from expansion versus new logos?",
      },
      {
        speaker: 'Samir Haddad',
        start_time: 22.5,
        end_time: 29.9,
        content:
          'Roughly sixty percent from expansion. Net revenue retention is 112 percent, and logo churn was 2.1 percent for the quarter.',
      },
      {
        speaker: 'Elaine Park',
        start_time: 30.2,
        end_time: 35.3,
        content: "What's burn looking like? Last time we were around $210k a month.",
      },
      {
        speaker: 'Samir Haddad',
        start_time: 36.4,
        end_time: 46.6,
        content:
          "We're down to $180k a month, mostly from moving off the old data warehouse contract. That gives us about 22 months of runway at current spend.",
      },
      {
        speaker: 'Robert Lindqvist',
        start_time: 47.6,
        end_time: 51.1,
        content: "Good. Maya, what's the biggest risk you see for Q4?",
      },
      {
        speaker: 'Maya Chen',
        start_time: 51.3,
        end_time: 59.8,
        content:
          "Sales capacity. Liam is closing almost everything himself, and we lost two deals in August purely because we couldn't respond fast enough.",
      },
      {
        speaker: 'Elaine Park',
        start_time: 60.6,
        end_time: 64.6,
        content: 'So you want to hire ahead of revenue. How many people?',
      },
      {
        speaker: 'Maya Chen',
        start_time: 64.9,
        end_time: 71.7,
        content:
          "Two account executives and one solutions engineer. Fully loaded, that's about $600,000 over the next twelve months.",
      },
      {
        speaker: 'Samir Haddad',
        start_time: 72,
        end_time: 80.5,
        content:
          'That would bring burn to roughly $230k a month and runway to about 17 months, assuming zero new revenue from those hires.',
      },
      {
        speaker: 'Robert Lindqvist',
        start_time: 81.3,
        end_time: 89.1,
        content:
          "Seventeen months is still fine if the reps ramp within two quarters. What's your evidence that the pipeline exists?",
      },
      {
        speaker: 'Maya Chen',
        start_time: 90.2,
        end_time: 100.3,
        content:
          "We have $1.1 million in qualified pipeline, and the enterprise pilot with Northwind Logistics starts in about a month. If that converts, it's our first six-figure contract.",
      },
      {
        speaker: 'Elaine Park',
        start_time: 100.8,
        end_time: 108.7,
        content:
          "I'm supportive, but I'd stage it. Hire the solutions engineer and one AE now, and the second AE once Northwind signs.",
      },
      {
        speaker: 'Robert Lindqvist',
        start_time: 108.9,
        end_time: 114.5,
        content: 'I agree with Elaine. Staging it protects runway and still addresses the bottleneck.',
      },
      {
        speaker: 'Maya Chen',
        start_time: 115.6,
        end_time: 123.5,
        content:
          'I can live with that. It also gives Liam time to build the onboarding playbook before the second hire.',
      },
      {
        speaker: 'Samir Haddad',
        start_time: 123.7,
        end_time: 132.1,
        content:
          "I'll update the model with the staged plan and circulate it by Monday, including a downside case where Northwind doesn't convert.",
      },
      {
        speaker: 'Elaine Park',
        start_time: 132.3,
        end_time: 135.8,
        content: 'On product, how is the Insights add-on being received?',
      },
      {
        speaker: 'Maya Chen',
        start_time: 136.2,
        end_time: 145.9,
        content:
          'Attach rate is 31 percent on new deals, above our 25 percent target, and three enterprise prospects asked for it by name last month.',
      },
      {
        speaker: 'Robert Lindqvist',
        start_time: 146.7,
        end_time: 151.4,
        content: "Great. Let's formally approve the staged hiring plan. Elaine, do you agree?",
      },
      { speaker: 'Elaine Park', start_time: 152.4, end_time: 154.4, content: 'Approved from my side.' },
      {
        speaker: 'Maya Chen',
        start_time: 155.5,
        end_time: 161.5,
        content: "Thank you. I'll send the minutes by Wednesday, and our next board meeting is October 17th.",
      },
      {
        speaker: 'Robert Lindqvist',
        start_time: 162.5,
        end_time: 168,
        content: 'Perfect. Nice work this quarter, Maya, and please pass that on to the team.',
      },
    ],
    summary: {
      context:
        'Q3 board update: ARR reached $2.4M (from $1.9M in Q2), NRR 112%, logo churn 2.1%, burn down to $180k/month with ~22 months of runway. Main Q4 risk is sales capacity.',
      decisions: [
        'The board approved a staged hiring plan: one solutions engineer and one AE now, the second AE once Northwind Logistics signs',
      ],
      action_items: [
        {
          task: 'Update the financial model with the staged hiring plan, including a downside case without Northwind',
          owner: 'Samir Haddad',
          deadline: 'Monday',
        },
        { task: 'Send the board meeting minutes', owner: 'Maya Chen', deadline: 'Wednesday' },
      ],
      participants: ['Maya Chen', 'Robert Lindqvist', 'Samir Haddad', 'Elaine Park'],
      next_step: 'Next board meeting on October 17th.',
      budget_mentioned:
        '$600,000 over 12 months for three sales hires (burn $180k/month, rising to ~$230k/month)',
      sentiment: 'positive',
    },
    summary_text:
      'Q3 board update. ARR crossed $2.4M (up from $1.9M), NRR is 112% and burn fell to $180k/month (~22 months runway). Maya asked for two AEs and a solutions engineer (~$600k over 12 months); the board approved a staged plan instead: the SE and one AE now, the second AE after the Northwind Logistics pilot converts. Samir circulates the updated model by Monday; minutes by Wednesday; next meeting October 17th.',
  },
  {
    title: 'Design review: weekly coverage view',
    platform: 'microphone',
    language: 'en',
    days_ago: 0.9,
    duration_seconds: 173,
    segments: [
      {
        speaker: 'Sofia Alvarez',
        start_time: 1.5,
        end_time: 10.3,
        content:
          "Okay, recording is on. This is the design review for the weekly coverage view, the one we're showing Harbor & Pine on Tuesday.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 11.1,
        end_time: 19,
        content:
          'Great. Remind me of the main goal: an office manager should spot unstaffed chairs before nine, in under ten seconds.',
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 19.5,
        end_time: 29.8,
        content:
          "Exactly. The core is what I'm calling the traffic-light grid: clinics as rows, days as columns, and each cell is green, amber, or red depending on coverage.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 30.1,
        end_time: 36,
        content:
          'How are you computing amber? Is that partially staffed, or staffed by someone from another location?',
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 36.5,
        end_time: 42.6,
        content:
          "Partially staffed. Borrowed staff get a small arrow icon instead, so we don't overload the colors.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 43.1,
        end_time: 50.9,
        content:
          'I like that. Red cells need to be impossible to miss. Could they pulse, or is that too much?',
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 52.1,
        end_time: 63.6,
        content:
          "I tested pulsing with three people and two found it stressful. I'd rather use a bold outline plus a count badge at the top, like '3 chairs unstaffed today'.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 64.5,
        end_time: 75,
        content:
          'From an engineering standpoint, fourteen clinics times seven days is only ninety-eight cells, so rendering is trivial. The hard part is real-time updates when someone swaps a shift.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 75.9,
        end_time: 81.3,
        content: 'Do we need real-time for the prototype, or can it refresh every minute?',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 82.2,
        end_time: 90.2,
        content:
          "For the prototype, polling every sixty seconds is fine. For production I'd reuse the existing websocket channel from Quillstack Sync.",
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 90.7,
        end_time: 101.3,
        content:
          "Next screen: clicking a cell opens a side panel with who's scheduled, their role, and a 'find cover' button that lists available hygienists within twenty miles.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 101.6,
        end_time: 108.4,
        content:
          'The twenty-mile radius should be configurable. Rachel mentioned some clinics are rural and people drive forty minutes.',
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 108.9,
        end_time: 115.1,
        content: "Good point, I'll add a radius setting in the panel header. Default twenty, maximum sixty.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 115.7,
        end_time: 123.9,
        content:
          "Keep the accessibility audit in mind. Color alone can't carry meaning, so each cell needs a text label or a pattern too.",
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 124.7,
        end_time: 133.7,
        content:
          "Already there: cells show the count, like '2 of 3', and the red ones get a diagonal stripe pattern for color-blind users.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 134.5,
        end_time: 139.9,
        content: "Nice. What about the front-desk monitors? Kevin said they're mostly 1366 by 768.",
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 141.1,
        end_time: 149.4,
        content:
          "I have a compact layout at that resolution that hides the weekend columns behind a toggle. I'll show it on Tuesday too.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 149.7,
        end_time: 158.3,
        content:
          "Then I think we're good. I'll wire the prototype to seeded data by Monday so it doesn't look fake in the demo.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 159.1,
        end_time: 168.9,
        content:
          "Let's go with the traffic-light grid, a bold outline instead of pulsing, and a configurable radius. Sofia, can you send the updated Figma link by Friday?",
      },
      {
        speaker: 'Sofia Alvarez',
        start_time: 169.7,
        end_time: 172.6,
        content: 'Will do, Friday at the latest.',
      },
    ],
    summary: null,
  },
  {
    title: 'Stackline Cloud renewal negotiation',
    platform: 'phone',
    language: 'en',
    days_ago: 21.5,
    duration_seconds: 174,
    segments: [
      {
        speaker: 'Brenda Collins',
        start_time: 0,
        end_time: 10.8,
        content:
          'Hi Daniel, hi Samir, thanks for hopping on. I wanted to walk through the renewal quote I sent last week before your contract ends on the 30th.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 11.5,
        end_time: 23.3,
        content:
          "Thanks, Brenda. I'll be direct: the 23 percent uplift caught us off guard. We went from $96,000 a year to a quote of $118,000 with basically the same footprint.",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 23.7,
        end_time: 34.2,
        content:
          'I hear you. Part of that is the new pricing on managed Postgres, which went up across the board in April, and part is your storage growth.',
      },
      {
        speaker: 'Samir Haddad',
        start_time: 35.4,
        end_time: 45.3,
        content:
          "Storage grew about 18 percent, I'll give you that. But managed Postgres is the piece we're most likely to move if the price stays this high.",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 46,
        end_time: 49.9,
        content: 'What would it take to keep the database workload with us?',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 50.8,
        end_time: 59.8,
        content:
          "Honestly, a number close to last year. We've already benchmarked a competitor, and their quote came in around $91,000 for comparable capacity.",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 60.1,
        end_time: 69.9,
        content:
          'Understood. If you commit to two years, I can get approval for $104,000 per year, with the managed Postgres rate locked for both years.',
      },
      {
        speaker: 'Samir Haddad',
        start_time: 70.9,
        end_time: 76.5,
        content: "That's still an eight percent increase. We'd need to see something closer to $98,000.",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 76.7,
        end_time: 86.1,
        content:
          'Let me see what else I can bundle. Would extra burst capacity be valuable? We could include 20 percent burst at no charge.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 86.5,
        end_time: 94.1,
        content:
          "Burst capacity is genuinely useful during our month-end reporting spikes. It doesn't change the headline number for Samir, though.",
      },
      {
        speaker: 'Samir Haddad',
        start_time: 94.9,
        end_time: 100.3,
        content: "If we go two years, paid quarterly, what's the best you can do?",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 100.7,
        end_time: 111,
        content:
          'My manager pre-approved a floor of $99,000 a year on a two-year term, with the 20 percent burst included and a $5,000 credit for the storage migration.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 111.2,
        end_time: 117,
        content: 'Samir, $99k with burst and the credit is pretty close to flat, given our growth.',
      },
      {
        speaker: 'Samir Haddad',
        start_time: 117.4,
        end_time: 125.3,
        content:
          "It's acceptable. I'd want a clause that the rate stays fixed even if we add up to 25 percent more storage.",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 126.4,
        end_time: 136.1,
        content:
          'I can put a 25 percent storage cap at the current rate in the order form. Anything above that would be at list price.',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 136.9,
        end_time: 144.8,
        content:
          "Fine by us. Can we also get a named support engineer? After last year's incident, response times were our biggest complaint.",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 145.4,
        end_time: 156,
        content:
          'Named support normally comes with the Premier plan, but I can include it for the first six months as a goodwill gesture, and we can revisit after that.',
      },
      {
        speaker: 'Samir Haddad',
        start_time: 157.2,
        end_time: 165.3,
        content:
          "Okay. Please send the revised order form with all of that by Wednesday, and I'll get it signed before the 30th.",
      },
      {
        speaker: 'Brenda Collins',
        start_time: 166.1,
        end_time: 171.1,
        content: "You'll have it Wednesday morning. Thanks, both of you, I appreciate the candor.",
      },
      { speaker: 'Daniel Okafor', start_time: 171.7, end_time: 173.7, content: 'Thanks, Brenda. Talk soon.' },
    ],
    summary: {
      context:
        'Renewal negotiation with Stackline Cloud (account manager Brenda Collins). The renewal quote of $118,000/year was a 23% uplift over the current $96,000/year; a competitor quoted ~$91,000.',
      decisions: [
        'Accept a two-year term at $99,000 per year, paid quarterly, with 20% burst capacity included and a $5,000 storage migration credit',
        'The order form will lock the current rate for up to 25% storage growth',
        'A named support engineer is included for the first six months',
      ],
      action_items: [
        {
          task: 'Send the revised order form with the agreed terms',
          owner: 'Brenda Collins',
          deadline: 'Wednesday',
        },
        { task: 'Get the order form signed', owner: 'Samir Haddad', deadline: 'before the 30th' },
      ],
      participants: ['Brenda Collins', 'Daniel Okafor', 'Samir Haddad'],
      next_step: 'Review and sign the revised order form before the contract ends on the 30th.',
      budget_mentioned:
        '$99,000 per year on a two-year term (down from a $118,000 quote; previously $96,000)',
      sentiment: 'positive',
    },
  },
  {
    title: 'Q4 planning offsite',
    platform: 'microphone',
    language: 'en',
    days_ago: 27.8,
    duration_seconds: 220,
    segments: [
      {
        speaker: 'Maya Chen',
        start_time: 5,
        end_time: 16.8,
        content:
          "Okay, let's get going. The goal for today is to leave this room with the three rocks for Q4 and an owner for each one. No more than three.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 17.6,
        end_time: 26.5,
        content:
          "I'll start with the product view. The recurring theme from customer calls is enterprise readiness: SSO everywhere, audit logs, and a SOC 2 report.",
      },
      {
        speaker: "Liam O'Brien",
        start_time: 27.6,
        end_time: 37.6,
        content:
          "From sales, that's exactly it. Four of the last seven enterprise deals stalled at the security review, and two asked for SOC 2 by name.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 38.1,
        end_time: 48.2,
        content:
          'SOC 2 Type I is realistic by December if we engage an auditor in the next three weeks. Type II would be next year no matter what.',
      },
      { speaker: 'Maya Chen', start_time: 49.1, end_time: 51.4, content: 'What does it cost us?' },
      {
        speaker: 'Daniel Okafor',
        start_time: 52.6,
        end_time: 62.3,
        content:
          'Auditor quotes came in between $25,000 and $35,000, plus a compliance tool at around $12,000 a year. Call it $45,000 all in for year one.',
      },
      {
        speaker: 'Maya Chen',
        start_time: 62.5,
        end_time: 70.9,
        content:
          "That's fine if it unblocks the enterprise pipeline. Enterprise readiness is rock number one, with SOC 2 Type I by December 15th.",
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 71.8,
        end_time: 81.5,
        content:
          'Can I make the case for support load? Tickets per customer went up 30 percent this quarter, mostly calendar sync duplicates and confusing onboarding.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 81.8,
        end_time: 91.2,
        content:
          'The sync duplicates are on the next sprint, and the onboarding checklist redesign is in flight. Those two alone should remove a big chunk.',
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 91.9,
        end_time: 99.2,
        content:
          "Then I'd want a target: 20 percent fewer tickets per customer by the end of Q4, measured in Zendesk.",
      },
      {
        speaker: 'Maya Chen',
        start_time: 100,
        end_time: 109.3,
        content:
          'I like having a measurable target. Rock number two: cut tickets per customer by 20 percent. Hannah owns the metric, Priya owns the product fixes.',
      },
      {
        speaker: "Liam O'Brien",
        start_time: 110.4,
        end_time: 120.3,
        content:
          "Rock three should be revenue. We're at about $2.3 million ARR with a couple of deals closing this week. I'd propose $3 million by year end.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 121.1,
        end_time: 126.3,
        content: "That's a big jump in one quarter. Is that realistic without new reps?",
      },
      {
        speaker: "Liam O'Brien",
        start_time: 126.9,
        end_time: 133.4,
        content:
          'Not without Northwind. Northwind alone is $180,000. Without it, $2.7 million is the more honest number.',
      },
      {
        speaker: 'Maya Chen',
        start_time: 134.3,
        end_time: 142.5,
        content:
          "Let's set the committed target at $2.7 million and the stretch at $3 million. I'll take both numbers to the board.",
      },
      {
        speaker: 'Priya Raman',
        start_time: 143.7,
        end_time: 148.6,
        content: 'What about mobile offline mode? The Android team has been asking for weeks.',
      },
      {
        speaker: 'Maya Chen',
        start_time: 149.8,
        end_time: 158,
        content:
          "It's important, but it's not a rock. It stays on the roadmap as a Q1 candidate, and we'll revisit in December.",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 158.4,
        end_time: 170.1,
        content:
          'Then I need to be clear about engineering capacity. With SOC 2 and the support fixes, roughly 70 percent of the team is committed. The rest is maintenance and on-call.',
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 170.6,
        end_time: 177.5,
        content:
          'One ask: can support get a weekly fifteen-minute slot with engineering to triage the top ticket categories?',
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 178.6,
        end_time: 182.5,
        content: "Yes. Let's do Thursdays at 11, starting next week.",
      },
      {
        speaker: "Liam O'Brien",
        start_time: 182.7,
        end_time: 191.8,
        content:
          "I'll also need a security one-pager for deals in flight, even before SOC 2 is done. Can we get that in two weeks?",
      },
      {
        speaker: 'Daniel Okafor',
        start_time: 192,
        end_time: 196.1,
        content: "I'll draft it with Marcus. Two weeks is fine.",
      },
      {
        speaker: 'Maya Chen',
        start_time: 196.5,
        end_time: 212.7,
        content:
          'Great. Let me recap the three rocks: enterprise readiness with SOC 2 Type I by December 15th, owned by Daniel; 20 percent fewer tickets per customer, owned by Hannah and Priya; and $2.7 million ARR committed, $3 million stretch, owned by Liam.',
      },
      {
        speaker: 'Priya Raman',
        start_time: 213.3,
        end_time: 220.2,
        content:
          "And offline mode is explicitly deferred to a Q1 decision. I'll write that into the roadmap doc today.",
      },
    ],
    summary: {
      context: 'Q4 planning offsite to agree on the three company rocks for the quarter and their owners.',
      decisions: [
        'Rock 1: enterprise readiness with SOC 2 Type I by December 15th, owned by Daniel (~$45,000 year-one cost approved)',
        'Rock 2: 20% fewer support tickets per customer by end of Q4, owned by Hannah (metric) and Priya (product fixes)',
        'Rock 3: $2.7M ARR committed, $3M stretch, owned by Liam',
        'Mobile offline mode is deferred to a Q1 decision',
        'Weekly 15-minute support/engineering triage on Thursdays at 11',
      ],
      action_items: [
        {
          task: 'Draft a security one-pager for deals in flight (with Marcus)',
          owner: 'Daniel Okafor',
          deadline: 'in two weeks',
        },
        {
          task: 'Start the weekly support triage slot on Thursdays at 11',
          owner: 'Daniel Okafor',
          deadline: 'next week',
        },
        {
          task: 'Record the offline mode deferral in the roadmap doc',
          owner: 'Priya Raman',
          deadline: 'today',
        },
        {
          task: 'Present the committed and stretch ARR targets to the board',
          owner: 'Maya Chen',
          deadline: null,
        },
      ],
      participants: ['Maya Chen', 'Priya Raman', "Liam O'Brien", 'Daniel Okafor', 'Hannah Weiss'],
      next_step: 'Engage a SOC 2 auditor within three weeks and start the Thursday triage next week.',
      budget_mentioned:
        '~$45,000 for SOC 2 Type I in year one (auditor $25,000–$35,000 plus ~$12,000/year compliance tool)',
      sentiment: 'positive',
    },
  },
  {
    title: null,
    platform: 'phone',
    language: 'en',
    days_ago: 0.2,
    duration_seconds: 141,
    segments: [
      {
        speaker: 'Hannah Weiss',
        start_time: 0,
        end_time: 10.4,
        content:
          "Hi Derek, it's Hannah from Quillstack support, and I've got Tom from our backend team on the line. Thanks for taking the call on short notice.",
      },
      {
        speaker: 'Derek Mills',
        start_time: 11.3,
        end_time: 21,
        content:
          "Thanks for calling. I'll be honest, this is getting urgent. Since Monday, about sixty of our users aren't seeing new meetings sync at all.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 22,
        end_time: 32.8,
        content:
          'Sorry about that, Derek. I pulled your workspace logs before the call. Every failing user has an expired Microsoft refresh token from around Monday at 8 a.m.',
      },
      {
        speaker: 'Derek Mills',
        start_time: 33.3,
        end_time: 40.8,
        content:
          'Monday morning is when our IT team changed the app consent policy in Entra. Could that be it?',
      },
      {
        speaker: 'Tom Becker',
        start_time: 41.8,
        end_time: 54,
        content:
          'Almost certainly. The policy change revoked existing grants. Our app should have shown the purple banner asking users to reconnect, but the banner only fires on web, not in the Outlook add-in.',
      },
      {
        speaker: 'Derek Mills',
        start_time: 55.2,
        end_time: 62.1,
        content: 'That explains it. Most of our people only use the add-in, so they never saw any banner.',
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 62.5,
        end_time: 72.3,
        content:
          'So there are two parts: an immediate workaround for your sixty users, and a fix on our side so the add-in prompts people too.',
      },
      {
        speaker: 'Tom Becker',
        start_time: 73.2,
        end_time: 82.6,
        content:
          'For the workaround, an admin can trigger a bulk re-consent from the admin console under Integrations. Users get an email with a one-click reconnect link.',
      },
      {
        speaker: 'Derek Mills',
        start_time: 83,
        end_time: 88.5,
        content: 'I can do that this afternoon. Will it duplicate any events when they reconnect?',
      },
      {
        speaker: 'Tom Becker',
        start_time: 89.5,
        end_time: 97.8,
        content:
          "It shouldn't. We dedupe on the Microsoft event ID, and the sync fix that shipped last week handles the timezone edge cases.",
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 98.9,
        end_time: 106.7,
        content:
          "I'll send you the exact steps with screenshots right after this call, and I'll stay on the ticket until everyone's reconnected.",
      },
      {
        speaker: 'Derek Mills',
        start_time: 107.6,
        end_time: 116.4,
        content:
          "Appreciated. Do you have a timeline for the add-in fix? I don't want this to happen again at the next policy rotation.",
      },
      {
        speaker: 'Tom Becker',
        start_time: 117.6,
        end_time: 125.5,
        content:
          "I'm writing the fix today. It should be in production by tomorrow evening, and I'll confirm once it's deployed.",
      },
      {
        speaker: 'Derek Mills',
        start_time: 126.6,
        end_time: 131.5,
        content: "Okay, that works. I'll tell our helpdesk to expect reconnect emails this afternoon.",
      },
      {
        speaker: 'Hannah Weiss',
        start_time: 132.5,
        end_time: 139.1,
        content:
          "Perfect. I'll check in tomorrow at ten to see how many users are still disconnected. Thanks again, Derek.",
      },
      { speaker: 'Derek Mills', start_time: 139.3, end_time: 141.3, content: 'Thanks, both of you. Bye.' },
    ],
    summary: null,
  },
  {
    title: 'Daily Standup Team Berlin',
    platform: 'meet',
    language: 'de',
    days_ago: 1.3,
    duration_seconds: 117,
    segments: [
      {
        speaker: 'Julia Schmidt',
        start_time: 0,
        end_time: 7.7,
        content:
          'Guten Morgen zusammen! Lasst es uns kurz machen, ich habe um halb zehn einen Kundentermin. Felix, fängst du an?',
      },
      {
        speaker: 'Felix Wagner',
        start_time: 8.9,
        end_time: 19,
        content:
          'Klar. Gestern habe ich den Export-Job für die Rechnungen fertig gebaut. Er läuft jetzt jede Nacht um zwei Uhr und schreibt die CSV-Dateien in den S3-Bucket.',
      },
      {
        speaker: 'Julia Schmidt',
        start_time: 20.2,
        end_time: 23,
        content: 'Super. Gibt es dafür schon Tests?',
      },
      {
        speaker: 'Felix Wagner',
        start_time: 23.4,
        end_time: 29.4,
        content:
          'Unit-Tests ja, aber der Integrationstest gegen die Staging-Datenbank fehlt noch. Den schreibe ich heute Vormittag.',
      },
      {
        speaker: 'Julia Schmidt',
        start_time: 29.6,
        end_time: 33,
        content: 'Okay. Anna, wie sieht es bei dir aus?',
      },
      {
        speaker: 'Anna Keller',
        start_time: 33.9,
        end_time: 41,
        content:
          'Ich arbeite weiter an der Übersetzung der Onboarding-Checkliste. Deutsch ist fertig, Französisch ist zu etwa achtzig Prozent durch.',
      },
      {
        speaker: 'Julia Schmidt',
        start_time: 42.2,
        end_time: 44.2,
        content: 'Hast du irgendwelche Blocker?',
      },
      {
        speaker: 'Anna Keller',
        start_time: 45.3,
        end_time: 54.9,
        content:
          'Ja, ein paar Texte im Figma-Entwurf von Sofia sind noch nicht final. Ich brauche die endgültigen Formulierungen bis Donnerstag, sonst verschiebt sich das Release.',
      },
      {
        speaker: 'Julia Schmidt',
        start_time: 55.9,
        end_time: 60.5,
        content: 'Ich schreibe Sofia direkt nach dem Standup an. Lukas, du bist dran.',
      },
      {
        speaker: 'Lukas Hoffmann',
        start_time: 61.7,
        end_time: 70.6,
        content:
          'Bei mir gab es gestern ein Problem mit der Zeitumstellung. Drei Kunden in Österreich haben doppelte Termine gemeldet, genau das Muster aus dem Sync-Bug.',
      },
      {
        speaker: 'Felix Wagner',
        start_time: 71,
        end_time: 77.8,
        content: 'Ist das nicht mit dem Fix von Tom behoben? Der ist doch letzte Woche live gegangen.',
      },
      {
        speaker: 'Lukas Hoffmann',
        start_time: 78.5,
        end_time: 86.2,
        content:
          'Nur für fünfundzwanzig Prozent der Workspaces, weil der Rollout noch läuft. Die drei Kunden sind noch nicht im Feature-Flag.',
      },
      {
        speaker: 'Julia Schmidt',
        start_time: 86.9,
        end_time: 90.3,
        content: 'Können wir die drei Kunden manuell ins Flag aufnehmen?',
      },
      {
        speaker: 'Lukas Hoffmann',
        start_time: 90.5,
        end_time: 97.4,
        content:
          'Ja, das geht über die Admin-Konsole. Ich mache das heute und informiere den Support, damit Hannah Bescheid weiß.',
      },
      {
        speaker: 'Julia Schmidt',
        start_time: 97.9,
        end_time: 108.5,
        content:
          'Gut. Von mir: Ich bereite die Demo für die Stadtwerke Leipzig vor, der Termin ist nächsten Dienstag. Felix, kannst du mir danach kurz die Export-Funktion zeigen?',
      },
      {
        speaker: 'Felix Wagner',
        start_time: 109.5,
        end_time: 112,
        content: 'Gerne. Passt dir morgen um vierzehn Uhr?',
      },
      {
        speaker: 'Julia Schmidt',
        start_time: 113.2,
        end_time: 117.2,
        content: 'Passt. Sonst noch etwas? Nein? Dann danke euch, bis morgen!',
      },
    ],
    summary: {
      context:
        'Tägliches Standup des Berliner Teams: Rechnungs-Export, Übersetzung der Onboarding-Checkliste, doppelte Termine bei österreichischen Kunden und die Demo für die Stadtwerke Leipzig.',
      decisions: [
        'Die drei betroffenen Kunden in Österreich werden manuell in das Feature-Flag für den Sync-Fix aufgenommen',
      ],
      action_items: [
        {
          task: 'Integrationstest für den Rechnungs-Export gegen die Staging-Datenbank schreiben',
          owner: 'Felix Wagner',
          deadline: 'heute Vormittag',
        },
        {
          task: 'Sofia wegen der finalen Texte für die Onboarding-Checkliste anschreiben',
          owner: 'Julia Schmidt',
          deadline: 'direkt nach dem Standup',
        },
        {
          task: 'Die drei österreichischen Kunden ins Feature-Flag aufnehmen und den Support informieren',
          owner: 'Lukas Hoffmann',
          deadline: 'heute',
        },
        { task: 'Julia die Export-Funktion zeigen', owner: 'Felix Wagner', deadline: 'morgen um 14 Uhr' },
        {
          task: 'Demo für die Stadtwerke Leipzig vorbereiten',
          owner: 'Julia Schmidt',
          deadline: 'nächsten Dienstag',
        },
      ],
      participants: ['Julia Schmidt', 'Felix Wagner', 'Anna Keller', 'Lukas Hoffmann'],
      next_step: 'Export-Walkthrough morgen um 14 Uhr; Demo für die Stadtwerke Leipzig am nächsten Dienstag.',
      budget_mentioned: null,
      sentiment: 'neutral',
    },
  },
];
