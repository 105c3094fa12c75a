import type { ReactNode } from 'react';

export const metadata = { title: 'Meeting Notes', description: 'Meeting notes API: transcripts, summaries, search and webhooks.' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', margin: 0 }}>{children}</body>
    </html>
  );
}
