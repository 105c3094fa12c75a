'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useRef } from 'react';
import { useTRPC } from '../trpc';
import { Card, ErrorMessage, Loading } from '../ui/card';
import { useLinkToken } from './link-token';

const LINK_CLASS =
  'mt-5 block w-full rounded-md bg-indigo-600 px-4 py-2 text-center text-sm font-medium text-white hover:bg-indigo-500';

/** The welcome email's link: verifies the address as the page opens (the token is the proof). */
export function VerifyEmail() {
  const trpc = useTRPC();
  const token = useLinkToken();
  const verify = useMutation(trpc.account.verifyEmail.mutationOptions());
  const asked = useRef(false);

  useEffect(() => {
    if (asked.current || !token) return;
    asked.current = true;
    verify.mutate({ token });
  }, [token, verify]);

  return (
    <Card>
      <h1 className="text-xl font-semibold">Verify your email</h1>
      {!token ? (
        <div className="mt-3 space-y-3 text-sm text-zinc-700">
          <ErrorMessage
            error={{ message: 'This link has no verification token. Open the link from the email again.' }}
          />
        </div>
      ) : verify.isSuccess ? (
        <div data-testid="email-verified" className="mt-3 space-y-3 text-sm text-zinc-700">
          <p role="status">
            <span className="font-medium break-all text-zinc-900">{verify.data.email}</span> is verified. We
            will send your webhook notices there.
          </p>
          <Link href="/account" className={LINK_CLASS}>
            Go to your account
          </Link>
        </div>
      ) : verify.isError ? (
        <div className="mt-3 space-y-3">
          <ErrorMessage error={verify.error} />
          <Link href="/account" className={LINK_CLASS}>
            Go to your account
          </Link>
        </div>
      ) : (
        <Loading label="Verifying your email address…" />
      )}
    </Card>
  );
}
