'use client';

import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { TextField } from '../ui/field';

export function SignInForm({ oauth }: { oauth: { id: string; name: string }[] }) {
  const router = useRouter();
  const params = useSearchParams();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn('credentials', { email: form.get('email'), password: form.get('password'), redirect: false });
    setPending(false);
    if (result?.ok) {
      router.push(params.get('callbackUrl') ?? '/notes');
      router.refresh();
    } else setError('That email and password do not match an account.');
  }

  return (
    <Card>
      <h1 className="text-xl font-semibold">Sign in</h1>
      <form onSubmit={onSubmit} className="mt-4 space-y-4">
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
        <ErrorMessage error={error ? { message: error } : null} />
        <Button type="submit" className="w-full" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
      {oauth.length > 0 ? (
        <div className="mt-4 space-y-2 border-t border-zinc-200 pt-4">
          {oauth.map((p) => (
            <Button key={p.id} variant="secondary" className="w-full" onClick={() => signIn(p.id, { callbackUrl: '/notes' })}>
              Continue with {p.name}
            </Button>
          ))}
        </div>
      ) : null}
      <p className="mt-4 text-center text-sm text-zinc-600">
        New here?{' '}
        <Link href="/sign-up" className="font-medium text-indigo-700 hover:underline">
          Create an account
        </Link>
      </p>
    </Card>
  );
}
