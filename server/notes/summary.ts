import { z } from 'zod';

// The Summary object. Used to validate what the recorder or a language model supplies, and to
// document Form B's summary object.
export const SummarySchema = z
  .object({
    context: z.string().nullable().meta({ description: 'What the meeting was about; null when unknown.' }),
    decisions: z.array(z.string()).meta({ description: 'Decisions taken, one sentence each.' }),
    action_items: z
      .array(
        z.object({
          task: z.string().meta({ description: 'What is to be done.' }),
          owner: z.string().nullable().meta({ description: 'Who is to do it; null when nobody was named.' }),
          deadline: z
            .string()
            .nullable()
            .meta({ description: 'When it is due, as said; null when not said.' }),
        }),
      )
      .meta({ description: 'Tasks agreed in the meeting.' }),
    participants: z.array(z.string()).meta({ description: 'Who took part, by name.' }),
    next_step: z.string().nullable().meta({ description: 'The agreed next step; null when none.' }),
    budget_mentioned: z
      .string()
      .nullable()
      .meta({ description: 'A budget figure mentioned in the meeting; null when none.' }),
    sentiment: z
      .string()
      .nullable()
      .meta({ description: 'The overall mood of the meeting; null when unknown.' }),
  })
  .meta({ id: 'Summary', description: 'AI summary of a meeting.' });

export type Summary = z.infer<typeof SummarySchema>;

/** Form A's plain-text summary when the recorder supplied none. */
export function renderSummaryText(summary: Summary): string {
  const parts: string[] = [];
  if (summary.context) parts.push(summary.context);
  if (summary.decisions.length)
    parts.push(`Decisions: ${summary.decisions.join('; ')}.`.replace(/\.\.$/, '.'));
  if (summary.next_step) parts.push(`Next step: ${summary.next_step}`);
  return parts.join('\n\n');
}
