'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { signOut } from 'next-auth/react';
import { useEffect, useRef, useState } from 'react';
import { ThemeToggle } from './theme-toggle';
import { useTRPC } from './trpc';

const LINKS = [
  { href: '/notes', label: 'Notes' },
  { href: '/keys', label: 'API keys' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/docs', label: 'API reference' },
  { href: '/account', label: 'Account' },
];
const ADMIN_LINK = { href: '/admin', label: 'Admin' };

/**
 * The settings app's navigation. On a phone (below `sm`) the entries fold behind a *Menu* button
 * that lists every one of them, Account and Admin included; from `sm` up they
 * sit in one row.
 */
export function SettingsNav({ email }: { email: string }) {
  const pathname = usePathname();
  const trpc = useTRPC();
  // The same query as the Account page: whether the signed-in account is an operator (a verified
  // address in ADMIN_EMAILS, server/accounts/operator-console.ts). Without an answer, no link.
  const account = useQuery(trpc.account.get.queryOptions(undefined, { retry: false, staleTime: 60_000 }));
  const links = account.data?.operator ? [...LINKS, ADMIN_LINK] : LINKS;
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);

  // A chosen entry closes the menu.
  const [shownPath, setShownPath] = useState(pathname);
  if (shownPath !== pathname) {
    setShownPath(pathname);
    setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  return (
    <header className="border-b border-zinc-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/notes" className="font-semibold tracking-tight">
          Meeting Notes
        </Link>
        <button
          ref={menuButton}
          type="button"
          data-testid="nav-menu-button"
          aria-expanded={open}
          aria-controls="settings-nav"
          onClick={() => setOpen((o) => !o)}
          className="ml-auto inline-flex items-center gap-2 rounded-md px-2.5 py-1.5 text-sm font-medium text-zinc-700 ring-1 ring-inset ring-zinc-300 hover:bg-zinc-50 sm:hidden"
        >
          <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
            {open ? (
              <path d="M5.3 4.3a1 1 0 0 1 1.4 0L10 7.6l3.3-3.3a1 1 0 1 1 1.4 1.4L11.4 9l3.3 3.3a1 1 0 0 1-1.4 1.4L10 10.4l-3.3 3.3a1 1 0 0 1-1.4-1.4L8.6 9 5.3 5.7a1 1 0 0 1 0-1.4Z" />
            ) : (
              <path d="M3 5a1 1 0 0 1 1-1h12a1 1 0 1 1 0 2H4a1 1 0 0 1-1-1Zm0 5a1 1 0 0 1 1-1h12a1 1 0 1 1 0 2H4a1 1 0 0 1-1-1Zm1 4a1 1 0 1 0 0 2h12a1 1 0 1 0 0-2H4Z" />
            )}
          </svg>
          Menu
        </button>
        <nav
          id="settings-nav"
          aria-label="Settings"
          className={`${open ? 'flex' : 'hidden'} order-3 w-full flex-col gap-1 sm:order-none sm:flex sm:w-auto sm:flex-row sm:flex-wrap`}
        >
          {links.map((l) => {
            const current = pathname === l.href || pathname.startsWith(`${l.href}/`);
            return (
              <Link
                key={l.href}
                href={l.href}
                aria-current={current ? 'page' : undefined}
                className={`whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium sm:py-1.5 ${current ? 'bg-zinc-100 text-zinc-900' : 'text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900'}`}
              >
                {l.label}
              </Link>
            );
          })}
          <div className="mt-1 flex flex-wrap items-center justify-between gap-3 border-t border-zinc-200 pt-2 text-sm sm:hidden">
            <span className="min-w-0 truncate text-zinc-600">{email}</span>
            <ThemeToggle />
            <SignOutButton />
          </div>
        </nav>
        <div className="ml-auto hidden items-center gap-3 text-sm sm:flex">
          <ThemeToggle />
          <span className="hidden text-zinc-600 lg:inline">{email}</span>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}

function SignOutButton() {
  return (
    <button
      type="button"
      onClick={() => signOut({ callbackUrl: '/sign-in' })}
      className="rounded-md px-2 py-1 text-zinc-700 hover:bg-zinc-100"
    >
      Sign out
    </button>
  );
}
