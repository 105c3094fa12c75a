'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { signOut } from 'next-auth/react';

const LINKS = [
  { href: '/notes', label: 'Notes' },
  { href: '/keys', label: 'API keys' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/docs', label: 'API reference' },
  { href: '/account', label: 'Account' },
];

export function SettingsNav({ email }: { email: string }) {
  const pathname = usePathname();
  return (
    <header className="border-b border-zinc-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/notes" className="font-semibold tracking-tight">
          Meeting Notes
        </Link>
        <nav
          aria-label="Settings"
          className="order-3 flex w-full flex-wrap gap-1 sm:order-none sm:w-auto sm:flex-nowrap sm:overflow-x-auto"
        >
          {LINKS.map((l) => {
            const current = pathname === l.href || pathname.startsWith(`${l.href}/`);
            return (
              <Link
                key={l.href}
                href={l.href}
                aria-current={current ? 'page' : undefined}
                className={`whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium ${current ? 'bg-zinc-100 text-zinc-900' : 'text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900'}`}
              >
                {l.label}
              </Link>
            );
          })}
        </nav>
        <div className="ml-auto flex items-center gap-3 text-sm">
          <span className="hidden text-zinc-500 md:inline">{email}</span>
          <button
            type="button"
            onClick={() => signOut({ callbackUrl: '/sign-in' })}
            className="rounded-md px-2 py-1 text-zinc-700 hover:bg-zinc-100"
          >
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
