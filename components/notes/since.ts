// The periods the notes page can be narrowed to (?since=), in days back from now.

export const SINCE_DAYS = { 7: 'Past 7 days', 30: 'Past 30 days', 365: 'Past 12 months' } as const;
export type SinceDays = keyof typeof SINCE_DAYS;

export function sinceFrom(value: string | null): SinceDays | null {
  const n = Number(value);
  return value && n in SINCE_DAYS ? (n as SinceDays) : null;
}
