'use client';

export type ApiForm = 'A' | 'B';

const OPTIONS: { form: ApiForm; label: string; hint: string }[] = [
  { form: 'A', label: 'Form A', hint: '{error:{code,message}}, daily limits' },
  { form: 'B', label: 'Form B', hint: '{error}, 100 requests/min' },
];

/** A two-way segmented control: which form's OpenAPI document is on screen. */
export function FormSwitch({ value, onChange }: { value: ApiForm; onChange(form: ApiForm): void }) {
  return (
    <div
      role="group"
      aria-label="API form"
      className="inline-flex w-full max-w-md rounded-lg bg-zinc-100 p-1 ring-1 ring-inset ring-zinc-200 sm:w-auto"
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
            <span className="block font-mono text-[11px] text-zinc-500">{option.hint}</span>
          </button>
        );
      })}
    </div>
  );
}
