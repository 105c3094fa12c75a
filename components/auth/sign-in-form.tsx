'use client';

import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { Button } from '../ui/button';
import { Card, ErrorMessage } from '../ui/card';
import { TextField } from '../ui/field';
import { DEFAULT_CALLBACK_PATH, safeCallbackPath } from './callback-path';

const LANDING = DEFAULT_CALLBACK_PATH;

/**
 * Where to go once signed in: the server already kept only a same-origin target (next-auth's
 * redirect callback); this is checked again against the page's own origin, so nothing but a path
 * of this site is ever followed.
 */
function landingPath(url: string | null | undefined): string {
  if (!url) return LANDING;
  try {
    const target = new URL(url, window.location.href);
    return target.origin === window.location.origin
      ? `${target.pathname}${target.search}${target.hash}`
      : LANDING;
  } catch {
    return LANDING;
  }
}

/** What to tell the user for next-auth's error codes (and ours, "TooManyAttempts:<seconds>"). */
function describeError(code: string | null): string | null {
  if (!code) return null;
  const [name, seconds] = code.split(':');
  if (name === 'TooManyAttempts') {
    const minutes = Math.max(1, Math.ceil(Number(seconds) / 60) || 15);
    return `Too many sign-in attempts. Please wait ${minutes} minute${minutes === 1 ? '' : 's'}, then try again.`;
  }
  if (name === 'CredentialsSignin') return 'That email and password do not match an account.';
  // Our OAuth sign-in refuses an address the provider does not say is verified (next-auth's code).
  if (name === 'AccessDenied')
    return 'That account’s email address is not verified with its provider. Verify it there, or sign in with your email and password.';
  return 'Signing in did not work. Please try again.';
}

export function SignInForm({ oauth }: { oauth: { id: string; name: string }[] }) {
  const router = useRouter();
  const params = useSearchParams();
  const [error, setError] = useState<string | null>(() => describeError(params.get('error')));
  const [pending, setPending] = useState(false);
  const passwordChanged = params.get('reset') === '1';
  // The page that sent the visitor here (the settings layout names it), checked here to be a path
  // of this site, and again by next-auth's redirect callback on the server.
  const callbackUrl = () => safeCallbackPath(params.get('callbackUrl'), window.location.origin);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn('credentials', {
      email: form.get('email'),
      password: form.get('password'),
      redirect: false,
      callbackUrl: callbackUrl(),
    }).catch(() => undefined);
    setPending(false);
    if (result?.ok && !result.error) {
      router.push(landingPath(result.url));
      router.refresh();
    } else setError(describeError(result?.error ?? 'Unknown'));
  }

  return (
    <Card>
      <h1 className="text-xl font-semibold">Sign in</h1>
      {passwordChanged && !error ? (
        <p
          role="status"
          data-testid="password-changed"
          className="mt-3 rounded-md bg-green-50 px-3 py-2 text-sm text-green-800 ring-1 ring-inset ring-green-200"
        >
          Your password was changed and every session was signed out. Sign in with the new password.
        </p>
      ) : null}
      <form onSubmit={onSubmit} className="mt-4 space-y-4">
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
        <p className="-mt-2 text-right text-sm">
          <Link href="/forgot-password" className="font-medium text-indigo-700 hover:underline">
            Forgot password?
          </Link>
        </p>
        <ErrorMessage error={error ? { message: error } : null} />
        <Button type="submit" className="w-full" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
      {oauth.length > 0 ? (
        <div className="mt-4 space-y-2 border-t border-zinc-200 pt-4">
          {oauth.map((p) => (
            <Button
              key={p.id}
              variant="secondary"
              className="w-full"
              onClick={() => signIn(p.id, { callbackUrl: callbackUrl() })}
            >
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
