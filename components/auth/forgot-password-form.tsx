'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { TextField } from '../ui/field';

/** "Forgot password": the answer is the same whether or not the address has an account. */
export function ForgotPasswordForm() {
  const trpc = useTRPC();
  const request = useMutation(trpc.account.requestPasswordReset.mutationOptions());
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email')).trim();
    await request.mutateAsync({ email });
    setSentTo(email);
  }

  if (sentTo) {
    return (
      <Card>
        <h1 className="text-xl font-semibold">Check your email</h1>
        <div data-testid="reset-sent" className="mt-3 space-y-3 text-sm text-zinc-700">
          <p>
            If <span className="font-medium break-all text-zinc-900">{sentTo}</span> has an account, we have
            sent it a link to choose a new password. The link works once, for one hour.
          </p>
          <p>Setting a new password signs your account out everywhere.</p>
        </div>
        <Link
          href="/sign-in"
          className="mt-5 block w-full rounded-md bg-indigo-600 px-4 py-2 text-center text-sm font-medium text-white hover:bg-indigo-500"
        >
          Back to sign in
        </Link>
      </Card>
    );
  }

  return (
    <Card>
      <h1 className="text-xl font-semibold">Forgot your password?</h1>
      <p className="mt-1 text-sm text-zinc-600">
        Enter your account’s email address and we will send you a link to choose a new one.
      </p>
      <form onSubmit={(e) => onSubmit(e).catch(() => {})} className="mt-4 space-y-4">
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <ErrorMessage error={request.error} />
        <Button type="submit" className="w-full" disabled={request.isPending}>
          {request.isPending ? 'Sending…' : 'Send the link'}
        </Button>
      </form>
      <p className="mt-4 text-center text-sm text-zinc-600">
        Remembered it?{' '}
        <Link href="/sign-in" className="font-medium text-indigo-700 hover:underline">
          Sign in
        </Link>
      </p>
    </Card>
  );
}
