'use client';

import { useMutation } from '@tanstack/react-query';
import { signOut } from 'next-auth/react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { ErrorMessage } from '../ui/card';
import { ConfirmDialog } from '../ui/confirm-dialog';

/** Ends every session of the account on the server (other browsers too), then this one's cookie. */
export function SignOutEverywhere() {
  const trpc = useTRPC();
  const endAll = useMutation(
    trpc.account.signOutEverywhere.mutationOptions({ onSuccess: () => signOut({ callbackUrl: '/sign-in' }) }),
  );
  return (
    <div className="space-y-3">
      <p className="text-sm text-zinc-600">
        Signed in somewhere you no longer use, or on a computer that is not yours? Signing out everywhere ends
        every session of your account, this one included; each browser has to sign in again.
      </p>
      <ErrorMessage error={endAll.error} onRetry={() => endAll.mutate()} retrying={endAll.isPending} />
      <ConfirmDialog
        title="Sign out everywhere?"
        description="Every browser signed in to your account is signed out, this one included."
        confirmLabel="Sign out everywhere"
        pending={endAll.isPending || endAll.isSuccess}
        onConfirm={() => endAll.mutate()}
        trigger={
          <Button
            variant="secondary"
            data-testid="sign-out-everywhere"
            disabled={endAll.isPending || endAll.isSuccess}
          >
            {endAll.isPending || endAll.isSuccess ? 'Signing out…' : 'Sign out everywhere'}
          </Button>
        }
      />
    </div>
  );
}
