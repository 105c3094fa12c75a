import { z } from 'zod';

// SPEC 2.4. Used to validate what the recorder or a language model supplies, and to
// document Form B's summary object.
export const SummarySchema = z
  .object({
    context: z.string().nullable(),
    decisions: z.array(z.string()),
    action_items: z.array(
      z.object({
        task: z.string(),
        owner: z.string().nullable(),
        deadline: z.string().nullable(),
      }),
    ),
    participants: z.array(z.string()),
    next_step: z.string().nullable(),
    budget_mentioned: z.string().nullable(),
    sentiment: z.string().nullable(),
  })
  .meta({ id: 'Summary', description: 'AI summary of a meeting (SPEC 2.4).' });

export type Summary = z.infer<typeof SummarySchema>;

/** D6: Form A's plain-text summary when the recorder supplied none. */
export function renderSummaryText(summary: Summary): string {
  const parts: string[] = [];
  if (summary.context) parts.push(summary.context);
  if (summary.decisions.length)
    parts.push(`Decisions: ${summary.decisions.join('; ')}.`.replace(/\.\.$/, '.'));
  if (summary.next_step) parts.push(`Next step: ${summary.next_step}`);
  return parts.join('\n\n');
}
