'use client';

import { useId } from 'react';
import { SelectField } from './field';

const HOUR = 3600;

/** The default overlap: the server takes 0 to 7 days. */
export const DEFAULT_OVERLAP_SECONDS = 24 * HOUR;

/**
 * How long an old credential keeps working beside its replacement, as the settings app offers it
 * for a webhook secret's rotation and a key's roll, with a hint that
 * warns in red when the old one stops at once.
 */
export function OverlapField(props: {
  label: string;
  testId: string;
  /** The first choice's label: what "no overlap" means here. */
  immediately: string;
  value: number;
  onChange(seconds: number): void;
  hints: { immediately: string; overlap: string };
}) {
  const hintId = useId();
  const choices = [
    { seconds: 0, label: props.immediately },
    { seconds: HOUR, label: '1 hour' },
    { seconds: DEFAULT_OVERLAP_SECONDS, label: '24 hours (recommended)' },
    { seconds: 7 * 24 * HOUR, label: '7 days' },
  ];
  return (
    <div>
      <SelectField
        label={props.label}
        data-testid={props.testId}
        value={String(props.value)}
        onChange={(e) => props.onChange(Number(e.target.value))}
        aria-describedby={hintId}
      >
        {choices.map((o) => (
          <option key={o.seconds} value={String(o.seconds)}>
            {o.label}
          </option>
        ))}
      </SelectField>
      <p id={hintId} className={`mt-1 text-xs ${props.value === 0 ? 'text-red-700' : 'text-zinc-500'}`}>
        {props.value === 0 ? props.hints.immediately : props.hints.overlap}
      </p>
    </div>
  );
}
