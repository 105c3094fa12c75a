import type { ReactNode } from 'react';
import { Providers } from '@/components/providers';
import './globals.css';

// Every page renders per request, so each carries the nonce of its own Content-Security-Policy
// (proxy.ts); a page prerendered at build time would have scripts without it.
export const dynamic = 'force-dynamic';

export const metadata = {
  title: 'Meeting Notes',
  description: 'Meeting notes API: transcripts, summaries, search and webhooks.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
