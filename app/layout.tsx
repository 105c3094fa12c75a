import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { Providers } from '@/components/providers';
import { THEME_SCRIPT } from '@/components/theme';
import './globals.css';

// Every page renders per request, so each carries the nonce of its own Content-Security-Policy
// (proxy.ts); a page prerendered at build time would have scripts without it.
export const dynamic = 'force-dynamic';

export const metadata = {
  title: 'Meeting Notes',
  description: 'Meeting notes API: transcripts, summaries, search and webhooks.',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The theme script runs under the page's CSP: it carries the nonce proxy.ts gave the request.
  const csp = (await headers()).get('content-security-policy') ?? '';
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  return (
    // The theme script sets <html>'s class and style before React hydrates: no flash of light.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script of ours (components/theme.ts), nonced, so dark mode applies before the first paint */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
