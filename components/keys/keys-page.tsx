'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { useTRPC } from '../trpc';
import { useHydrated } from '../ui/use-hydrated';
import { Button } from '../ui/button';
import { PageHeader } from '../ui/card';
import { ShownOnce } from '../ui/copy-button';
import { CreateKeyForm } from './create-key-form';
import { CurlExample } from './curl-example';
import { KeyList } from './key-list';

export function KeysPage() {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  // The navigation asks for the account too: its answer waits for this page to hydrate (use-hydrated.ts).
  const hydrated = useHydrated();
  // The plaintext lives only in this component's state: leaving the page forgets it (only a hash is stored).
  const [created, setCreated] = useState<{ plaintext: string; name: string } | null>(null);

  return (
    <div className="space-y-6">
      <PageHeader
        title="API keys"
        description="Keys authenticate calls to the /v1 API and the MCP server for this account. We store only a hash: a key is shown once, when you create or roll it."
        actions={
          <Link
            href="/docs"
            className="rounded-md px-3 py-2 text-sm font-medium text-indigo-700 ring-1 ring-inset ring-indigo-200 hover:bg-indigo-50"
          >
            API reference
          </Link>
        }
      />

      {hydrated && account.data && !account.data.earlyAccess ? (
        <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-inset ring-amber-200">
          Your account does not have early access yet, so API calls with these keys answer 403 for now.{' '}
          <Link href="/account" className="font-medium underline">
            See your account
          </Link>
        </p>
      ) : null}

      <CreateKeyForm onCreated={(plaintext, name) => setCreated({ plaintext, name })} />

      {created ? (
        <div className="space-y-2" aria-live="polite">
          <ShownOnce label="Your new API key" value={created.plaintext} />
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-xs text-zinc-500">
              Created “{created.name}”. Store it in your secret manager before you leave this page.
            </p>
            <Button variant="ghost" onClick={() => setCreated(null)}>
              I have stored it
            </Button>
          </div>
        </div>
      ) : null}

      <section aria-labelledby="keys-heading" className="space-y-3">
        <div>
          {/* tabIndex: the focus comes back here when a dialog closes after its key left the list. */}
          <h2 id="keys-heading" tabIndex={-1} className="text-base font-semibold focus:outline-none">
            Your keys
          </h2>
          <p className="mt-1 text-sm text-zinc-600">
            Requests are counted per UTC day, including any that a rate limit refused. Roll a key to replace
            it without downtime: the old one keeps working for the overlap you choose.
          </p>
        </div>
        <KeyList />
      </section>

      <CurlExample />
    </div>
  );
}
