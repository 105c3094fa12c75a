'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { TextField } from '../ui/field';

/**
 * The answer to a sign-up does not say whether the address had an account already (that would
 * tell anyone who has one): either way its owner gets an email, and a new address's owner signs
 * in with the password just chosen.
 */
export function SignUpForm() {
  const trpc = useTRPC();
  const signUp = useMutation(trpc.account.signUp.mutationOptions());
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email')).trim();
    await signUp.mutateAsync({
      email,
      password: String(form.get('password')),
      name: String(form.get('name') || '') || undefined,
    });
    setSentTo(email);
  }

  if (sentTo) {
    return (
      <Card>
        <h1 className="text-xl font-semibold">Check your email</h1>
        <div data-testid="sign-up-sent" className="mt-3 space-y-3 text-sm text-zinc-700">
          <p>
            We have sent a message to <span className="font-medium break-all text-zinc-900">{sentTo}</span>.
          </p>
          <p>
            If this address was new, your account is ready: sign in with the password you just chose, and open
            the link in the email to verify your address (until then we send you no webhook notices).
          </p>
          <p>
            If the address already had an account, the email says so, and your existing password still
            applies.
          </p>
        </div>
        <Link
          href={`/sign-in?callbackUrl=${encodeURIComponent('/account?welcome=1')}`}
          className="mt-5 block w-full rounded-md bg-indigo-600 px-4 py-2 text-center text-sm font-medium text-white hover:bg-indigo-500"
        >
          Sign in
        </Link>
      </Card>
    );
  }

  return (
    <Card>
      <h1 className="text-xl font-semibold">Create an account</h1>
      <p className="mt-1 text-sm text-zinc-600">
        API access is limited to early-access accounts: you can create keys and webhooks right away, and API
        calls answer 403 until your account has early access.
      </p>
      <form onSubmit={(e) => onSubmit(e).catch(() => {})} className="mt-4 space-y-4">
        <TextField label="Name" name="name" autoComplete="name" maxLength={100} />
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={10}
          required
          hint="At least 10 characters and hard to guess (a few unrelated words work well); at most 72 bytes."
        />
        <ErrorMessage error={signUp.error} />
        <Button type="submit" className="w-full" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating…' : 'Create account'}
        </Button>
      </form>
      <p className="mt-4 text-center text-sm text-zinc-600">
        Have an account?{' '}
        <Link href="/sign-in" className="font-medium text-indigo-700 hover:underline">
          Sign in
        </Link>
      </p>
    </Card>
  );
}
