'use client';

import * as RadixCheckbox from '@radix-ui/react-checkbox';
import type { ComponentProps } from 'react';

/** A Radix checkbox (a button with role="checkbox") in the app's frame; label it with htmlFor. */
export function Checkbox(props: Omit<ComponentProps<typeof RadixCheckbox.Root>, 'className' | 'children'>) {
  return (
    <RadixCheckbox.Root
      {...props}
      className="mt-0.5 flex size-4 shrink-0 items-center justify-center rounded border border-zinc-400 bg-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 data-[state=checked]:border-indigo-600 data-[state=checked]:bg-indigo-600"
    >
      <RadixCheckbox.Indicator className="text-white">
        <svg viewBox="0 0 12 12" aria-hidden="true" className="size-3">
          <path
            d="M2.5 6.5l2.5 2.5 4.5-5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
      </RadixCheckbox.Indicator>
    </RadixCheckbox.Root>
  );
}
