'use client';

import type { FormName } from '@/server/domain';
import { formProfileList } from '@/server/rest/form-profiles';

export type ApiForm = FormName;

const OPTIONS = formProfileList().map((p) => ({ form: p.name, label: p.about.label, hint: p.about.summary }));

/** A two-way segmented control: which form's OpenAPI document is on screen. */
export function FormSwitch({ value, onChange }: { value: ApiForm; onChange(form: ApiForm): void }) {
  return (
    // Two equal columns, as wide as the wider option on a desktop and halves of the screen on a
    // phone, where the hints break anywhere: no option is wider than the control or the screen.
    <fieldset
      aria-label="API form"
      className="grid w-full min-w-0 grid-cols-2 gap-1 rounded-lg bg-zinc-100 p-1 ring-1 ring-inset ring-zinc-200 sm:inline-grid sm:w-auto"
    >
      {OPTIONS.map((option) => {
        const selected = option.form === value;
        return (
          <button
            key={option.form}
            type="button"
            data-testid={`form-switch-${option.form}`}
            aria-pressed={selected}
            onClick={() => onChange(option.form)}
            className={`min-w-0 rounded-md px-3 py-1.5 text-left text-sm transition-colors sm:px-4 ${
              selected
                ? 'bg-white font-medium text-zinc-900 shadow-sm ring-1 ring-zinc-200'
                : 'text-zinc-600 hover:text-zinc-900'
            }`}
          >
            <span className="block">{option.label}</span>
            <span className="block font-mono text-[11px] text-zinc-600 [overflow-wrap:anywhere]">
              {option.hint}
            </span>
          </button>
        );
      })}
    </fieldset>
  );
}
