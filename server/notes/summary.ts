import { z } from 'zod';
import { MAX_ANSWER_ARRAY_ITEMS, MAX_ANSWER_STRING_LENGTH } from '../openapi-bounds';

// What a language model writes has no length the service checks, so the documented bounds are
// the answer's own (openapi-bounds.ts); they are meta only and change no validation.
const text = (description: string) => z.string().meta({ description, maxLength: MAX_ANSWER_STRING_LENGTH });
const nullableText = (description: string) =>
  z.string().meta({ maxLength: MAX_ANSWER_STRING_LENGTH }).nullable().meta({ description });
const items = { maxItems: MAX_ANSWER_ARRAY_ITEMS };

// The Summary object. Used to validate what the recorder or a language model supplies, and to
// document Form B's summary object.
export const SummarySchema = z
  .object({
    context: nullableText('What the meeting was about; null when unknown.'),
    decisions: z
      .array(text('A decision taken, in one sentence.'))
      .meta({ description: 'Decisions taken, one sentence each.', ...items }),
    action_items: z
      .array(
        z.object({
          task: text('What is to be done.'),
          owner: nullableText('Who is to do it; null when nobody was named.'),
          deadline: nullableText('When it is due, as said; null when not said.'),
        }),
      )
      .meta({ description: 'Tasks agreed in the meeting.', ...items }),
    participants: z
      .array(text('A participant, by name.'))
      .meta({ description: 'Who took part, by name.', ...items }),
    next_step: nullableText('The agreed next step; null when none.'),
    budget_mentioned: nullableText('A budget figure mentioned in the meeting; null when none.'),
    sentiment: nullableText('The overall mood of the meeting; null when unknown.'),
  })
  .meta({ id: 'Summary', description: 'AI summary of a meeting.' });

export type Summary = z.infer<typeof SummarySchema>;

// Field by field in the schema's order: the stored JSON's order and any key it might carry
// beyond the Summary's seven fields stay inside (responses are not re-parsed through the schema).
export function presentSummary(s: Summary): z.input<typeof SummarySchema> {
  return {
    context: s.context,
    decisions: s.decisions,
    action_items: s.action_items.map((a) => ({ task: a.task, owner: a.owner, deadline: a.deadline })),
    participants: s.participants,
    next_step: s.next_step,
    budget_mentioned: s.budget_mentioned,
    sentiment: s.sentiment,
  };
}

/** Form A's plain-text summary when the recorder supplied none. */
export function renderSummaryText(summary: Summary): string {
  const parts: string[] = [];
  if (summary.context) parts.push(summary.context);
  if (summary.decisions.length)
    parts.push(`Decisions: ${summary.decisions.join('; ')}.`.replace(/\.\.$/, '.'));
  if (summary.next_step) parts.push(`Next step: ${summary.next_step}`);
  return parts.join('\n\n');
}
