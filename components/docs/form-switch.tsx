'use client';

import type { FormName } from '@/server/domain';
import { formProfileList } from '@/server/rest/form-profiles';

export type ApiForm = FormName;

const OPTIONS = formProfileList().map((p) => ({ form: p.name, label: p.about.label, hint: p.about.summary }));

/** A two-way segmented control: which form's OpenAPI document is on screen. */
export function FormSwitch({ value, onChange }: { value: ApiForm; onChange(form: ApiForm): void }) {
  return (
    <fieldset
      aria-label="API form"
      className="inline-flex w-full min-w-0 max-w-md rounded-lg bg-zinc-100 p-1 ring-1 ring-inset ring-zinc-200 sm:w-auto"
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
            className={`flex-1 basis-0 rounded-md px-4 py-1.5 text-left text-sm transition-colors sm:flex-none ${
              selected
                ? 'bg-white font-medium text-zinc-900 shadow-sm ring-1 ring-zinc-200'
                : 'text-zinc-600 hover:text-zinc-900'
            }`}
          >
            <span className="block">{option.label}</span>
            <span className="block font-mono text-[11px] text-zinc-600">{option.hint}</span>
          </button>
        );
      })}
    </fieldset>
  );
}
