'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { signOut } from 'next-auth/react';
import type { FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { TextField } from '../ui/field';
import { useLinkToken } from './link-token';

/** The reset email's link: a new password, and every session of the account ends. */
export function ResetPasswordForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const token = useLinkToken();
  const reset = useMutation(
    trpc.account.resetPassword.mutationOptions({
      // Every session ended on the server; this browser's cookie (if any) goes too.
      onSuccess: () => signOut({ redirect: false }).finally(() => router.push('/sign-in?reset=1')),
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    reset.mutate({ token, password: String(new FormData(event.currentTarget).get('password')) });
  }

  return (
    <Card>
      <h1 className="text-xl font-semibold">Choose a new password</h1>
      {token ? (
        <>
          <p className="mt-1 text-sm text-zinc-600">
            Setting it signs your account out everywhere, on every device.
          </p>
          <form onSubmit={onSubmit} className="mt-4 space-y-4">
            <TextField
              label="New password"
              name="password"
              type="password"
              autoComplete="new-password"
              minLength={10}
              required
              hint="At least 10 characters and hard to guess (a few unrelated words work well); at most 72 bytes."
            />
            <ErrorMessage error={reset.error} />
            <Button type="submit" className="w-full" disabled={reset.isPending || reset.isSuccess}>
              {reset.isPending || reset.isSuccess ? 'Saving…' : 'Set new password'}
            </Button>
          </form>
        </>
      ) : (
        <div className="mt-3">
          <ErrorMessage
            error={{ message: 'This link has no reset token. Open the link from the email again.' }}
          />
        </div>
      )}
      <p className="mt-4 text-center text-sm text-zinc-600">
        Need a new link?{' '}
        <Link href="/forgot-password" className="font-medium text-indigo-700 hover:underline">
          Ask for one
        </Link>
      </p>
    </Card>
  );
}
