import type { ReactNode } from 'react';
import { RouteFocus } from './route-focus';
import { SettingsNav } from './settings-nav';

/**
 * The signed-in frame of every settings page, and of /docs for a signed-in visitor: a skip link
 * as the first Tab stop, the navigation, and the main region that focus moves into after a
 * client-side navigation.
 */
export function SettingsShell({ email, children }: { email: string; children: ReactNode }) {
  return (
    <div className="min-h-screen">
      {/* The first Tab stop skips the navigation. */}
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-3 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-indigo-700 focus:shadow focus:ring-2 focus:ring-indigo-500"
      >
        Skip to content
      </a>
      <SettingsNav email={email} />
      <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-8 focus:outline-none">
        {children}
      </main>
      <RouteFocus />
    </div>
  );
}
