'use client';

import * as Checkbox from '@radix-ui/react-checkbox';
import { useId } from 'react';
import type { WebhookEvent } from '@/server/domain';
import { EVENT_OPTIONS } from './webhook-shared';

/** The events an endpoint subscribes to, as checkboxes with what each one means; kept in SPEC order. */
export function EndpointEventCheckboxes({
  value,
  onChange,
  error,
  legend = 'Events',
}: {
  value: readonly WebhookEvent[];
  onChange(events: WebhookEvent[]): void;
  error?: string | null;
  legend?: string;
}) {
  const baseId = useId();

  function toggle(name: WebhookEvent, checked: boolean) {
    onChange(
      checked
        ? EVENT_OPTIONS.map((o) => o.name).filter((n) => n === name || value.includes(n))
        : value.filter((n) => n !== name),
    );
  }

  return (
    <fieldset aria-describedby={error ? `${baseId}-error` : undefined} className="min-w-0">
      <legend className="text-sm font-medium text-zinc-800">{legend}</legend>
      <div className="mt-2 space-y-3">
        {EVENT_OPTIONS.map((option) => {
          const id = `${baseId}-${option.name}`;
          return (
            <div key={option.name} className="flex items-start gap-3">
              <Checkbox.Root
                id={id}
                name="events"
                value={option.name}
                checked={value.includes(option.name)}
                onCheckedChange={(checked) => toggle(option.name, checked === true)}
                aria-describedby={`${id}-description`}
                className="mt-0.5 flex size-4 shrink-0 items-center justify-center rounded border border-zinc-400 bg-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 data-[state=checked]:border-indigo-600 data-[state=checked]:bg-indigo-600"
              >
                <Checkbox.Indicator className="text-white">
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
                </Checkbox.Indicator>
              </Checkbox.Root>
              <div className="min-w-0">
                <label htmlFor={id} className="font-mono text-sm text-zinc-900">
                  {option.name}
                </label>
                <p id={`${id}-description`} className="text-xs text-zinc-500">
                  {option.description}
                </p>
              </div>
            </div>
          );
        })}
      </div>
      {error ? (
        <p id={`${baseId}-error`} role="alert" className="mt-2 text-xs text-red-600">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
