'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';

export function WelcomeBanner({ earlyAccess }: { earlyAccess: boolean | undefined }) {
  const router = useRouter();
  return (
    <section
      aria-labelledby="welcome-heading"
      className="rounded-lg bg-indigo-50 p-4 ring-1 ring-inset ring-indigo-200 sm:p-6"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id="welcome-heading" className="text-base font-semibold text-indigo-950">
          Welcome! Your account is ready.
        </h2>
        <button
          type="button"
          onClick={() => router.replace('/account')}
          className="rounded-md px-2 py-1 text-sm text-indigo-800 hover:bg-indigo-100"
        >
          Dismiss
        </button>
      </div>
      <ol className="mt-3 list-decimal space-y-1 pl-5 text-sm text-indigo-950">
        <li>
          <Link href="/keys" className="font-medium underline">
            Create an API key
          </Link>{' '}
          to call the API from your code.
        </li>
        <li>
          <Link href="/webhooks" className="font-medium underline">
            Add a webhook endpoint
          </Link>{' '}
          to hear when a meeting is recorded, transcribed and summarised.
        </li>
      </ol>
      {earlyAccess === false ? (
        <p className="mt-3 text-sm text-indigo-900">
          Until your account has early access, API calls answer 403; you can set up keys and webhooks in the
          meantime.
        </p>
      ) : null}
    </section>
  );
}
