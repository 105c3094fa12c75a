'use client';

import { useEffect, useId, useState } from 'react';
import { readThemeChoice, storeThemeChoice, type ThemeChoice } from './theme';

/** System, Light or Dark, kept in this browser (components/theme.ts). */
export function ThemeToggle({ className = '' }: { className?: string }) {
  const id = useId();
  // Unknown until mounted: the server cannot know the stored choice. Until then the control is
  // disabled, so a choice made before the page's code has loaded is not lost (nor undone by the
  // stored one a moment later).
  const [choice, setChoice] = useState<ThemeChoice | null>(null);
  useEffect(() => setChoice(readThemeChoice()), []);
  return (
    <span className={`inline-flex items-center gap-1.5 text-sm ${className}`}>
      <label htmlFor={id} className="text-zinc-600">
        Theme
      </label>
      <select
        id={id}
        data-testid="theme-toggle"
        value={choice ?? 'system'}
        disabled={choice === null}
        onChange={(e) => {
          const next = e.target.value as ThemeChoice;
          setChoice(next);
          storeThemeChoice(next);
        }}
        className="rounded-md border-0 bg-white py-1 pr-7 pl-2 text-sm text-zinc-900 ring-1 ring-inset ring-zinc-300 focus:ring-2 focus:ring-indigo-600"
      >
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </span>
  );
}
