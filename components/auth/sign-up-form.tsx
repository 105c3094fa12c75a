'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { TextField } from '../ui/field';

export function SignUpForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const signUp = useMutation(trpc.account.signUp.mutationOptions());
  const [signInError, setSignInError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    await signUp.mutateAsync({ email, password, name: String(form.get('name') || '') || undefined });
    const result = await signIn('credentials', { email, password, redirect: false });
    if (!result?.ok) return setSignInError('Your account was created, but signing in failed. Please sign in.');
    router.push('/account?welcome=1');
    router.refresh();
  }

  return (
    <Card>
      <h1 className="text-xl font-semibold">Create an account</h1>
      <p className="mt-1 text-sm text-zinc-600">
        API access is limited to early-access accounts: you can create keys and webhooks right away, and API calls answer 403
        until your account has early access.
      </p>
      <form onSubmit={(e) => onSubmit(e).catch(() => {})} className="mt-4 space-y-4">
        <TextField label="Name" name="name" autoComplete="name" />
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" minLength={8} required hint="At least 8 characters." />
        <ErrorMessage error={signUp.error ?? (signInError ? { message: signInError } : null)} />
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
