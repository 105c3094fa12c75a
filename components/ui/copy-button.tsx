'use client';

import { useState } from 'react';
import { Button } from './button';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="secondary"
      aria-live="polite"
      onClick={async () => {
        await navigator.clipboard?.writeText(value).catch(() => {});
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? 'Copied' : label}
    </Button>
  );
}

/** A secret shown once, with a copy button and a plain warning. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-md bg-amber-50 p-4 ring-1 ring-inset ring-amber-200">
      <p className="text-sm font-medium text-amber-900">{label}</p>
      <p className="mt-1 text-xs text-amber-800">
        Copy it now: it is shown only this once and cannot be recovered.
      </p>
      <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          data-testid="shown-once-value"
          className="block min-w-0 grow break-all rounded bg-white px-2 py-1.5 font-mono text-xs ring-1 ring-amber-200"
        >
          {value}
        </code>
        <CopyButton value={value} />
      </div>
    </div>
  );
}
