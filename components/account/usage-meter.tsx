'use client';

const number = new Intl.NumberFormat('en');

/** "HH:MM" in UTC: the daily window is a UTC day. */
const utcTime = (iso: string) => new Date(iso).toISOString().slice(11, 16);

export function UsageMeter({ usage }: { usage: { today: number; limit: number; resetsAt: string } }) {
  const { today, limit, resetsAt } = usage;
  const share = limit > 0 ? Math.min(1, today / limit) : 1;
  const bar = share >= 1 ? 'bg-red-500' : share >= 0.8 ? 'bg-amber-500' : 'bg-indigo-600';
  return (
    <div data-testid="usage-today" className="space-y-2">
      <div
        role="progressbar"
        aria-label="API requests today"
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(today, limit)}
        aria-valuetext={`${number.format(today)} of ${number.format(limit)} requests`}
        className="h-2.5 w-full overflow-hidden rounded-full bg-zinc-100 ring-1 ring-inset ring-zinc-200"
      >
        <div
          className={`h-full rounded-full transition-[width] ${bar}`}
          style={{ width: `${share * 100}%` }}
        />
      </div>
      <p className="text-sm text-zinc-700">
        <span className="font-medium text-zinc-900">{number.format(today)}</span> of {number.format(limit)}{' '}
        requests today (Form A daily limit), resets at {utcTime(resetsAt)} UTC
      </p>
      <p className="text-xs text-zinc-500">
        Form B keys are limited per key instead: 100 requests per minute, on every plan.
      </p>
    </div>
  );
}
